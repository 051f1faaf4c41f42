// Reproducers as files: every new bucket of a `fuzzfarm ci` run is written
// as one JSON file (what the engine needs to run it again: the input bytes,
// the recorded schedule or the wasm program's seed and options; the crash it
// must give; the command line and versions) that the workflow uploads as an
// artifact, and `fuzzfarm repro FILE` runs in any clone of the repository:
// no database, no farm. Paths inside the checkout are stored as {{repo}}.
// For the input engine the input's raw bytes sit beside it (<id>.input).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { reproduceAndCount, writeReproVerdict } from "../reproduce-runs";
import { repoRootOf } from "./git";
import { referenceState, sameBug } from "./replay";
import { localize, relocate } from "./state";

export const REPRODUCER_FORMAT = "fuzzfarm-reproducer";

export interface ReproducerFile {
  format: typeof REPRODUCER_FORMAT;
  version: 1;
  id: string;
  /** Repository-relative path of the target. */
  target: string;
  engine: string;
  kind: string;
  title: string;
  signature: string;
  /** The report the replay must match: message, stack, artifact ({reproducer, detail}). */
  report: { message: string; stack: string; artifact: unknown };
  /** How to run it, from the repository's root. */
  command: string;
  versions: { fuzzfarm: string; node: string; commit: string };
}

/** This FuzzFarm's version (its CLI package's). */
export function fuzzfarmVersion(): string {
  // checkout: apps/cli/package.json; installed bundle: the package beside dist/
  for (const rel of ["../../package.json", "../package.json"]) {
    try {
      const p = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (p.version && (p.name === "fuzzfarm" || p.name === "@fuzzfarm/cli")) return p.version;
    } catch {
      // the other layout (checkout or bundle)
    }
  }
  return "unknown";
}

/** Write one bucket's reproducer file under `dir` (and the raw input beside it); returns its path. */
export function writeReproducerFile(dir: string, root: string, b: Omit<ReproducerFile, "format" | "version" | "command" | "versions">, commit: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${b.id}.json`);
  const file: ReproducerFile = {
    format: REPRODUCER_FORMAT,
    version: 1,
    ...relocate(b, root),
    command: `npx fuzzfarm repro ${basename(path)}`,
    versions: { fuzzfarm: fuzzfarmVersion(), node: process.version, commit },
  };
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  const input = ((b.report.artifact as { reproducer?: { input?: string } }).reproducer ?? {}).input;
  if (input !== undefined) writeFileSync(join(dir, `${b.id}.input`), Buffer.from(input, "base64"));
  return path;
}

/** `fuzzfarm repro FILE`: run a reproducer file in the repository around the current directory (or --root). */
export async function reproFile(path: string, f: { runs?: number; json?: boolean; root?: string }, allowedOptimizers: string[] | undefined, out = process.stdout): Promise<number> {
  let file: ReproducerFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as ReproducerFile;
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_CONFIG", `${path} is not a reproducer file: ${(e as Error).message.split("\n")[0]}`);
  }
  if (file.format !== REPRODUCER_FORMAT) throw new FuzzFarmError("FF_ERR_CONFIG", `${path} is not a FuzzFarm reproducer file (no "format": "${REPRODUCER_FORMAT}")`);
  if (file.version > 1) throw new FuzzFarmError("FF_ERR_CONFIG", `${path} has reproducer format version ${file.version}; this FuzzFarm reads version 1: upgrade it`);
  const root = resolve(f.root ?? repoRootOf(process.cwd()));
  const target = join(root, file.target);
  if (!existsSync(target)) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `target ${file.target} not found under ${root} (run it from the repository, or pass --root)`);
  const local = localize(file, root);
  const ref = referenceState(local, root);
  if (!ref) throw new FuzzFarmError("FF_ERR_CONFIG", `${path} holds no valid reproducer`);
  const r = await reproduceAndCount(target, ref.repro, f.runs ?? 1, allowedOptimizers, (o) => sameBug(o, { root }, ref.state) !== null);
  return writeReproVerdict(out, f.json, { file: path, bucketId: file.id, target: file.target }, `${file.id} (${file.kind}: ${file.title})`, r);
}
