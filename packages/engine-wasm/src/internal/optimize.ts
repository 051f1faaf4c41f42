// The optimizer under test, pluggable:
//   - the project's own binaryen.js (default);
//   - `--optimizer PATH`: a directory holding any version of the `binaryen` npm
//     package (the package directory itself, or a directory whose node_modules has it);
//   - `--optimizer-cmd 'wasm-opt ...'`: a command run as `CMD IN.wasm -o OUT.wasm`
//     (`--enable-threads` is appended unless the command enables features itself).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { ownBinaryen } from "./wasm-tools";

export const OPT_LEVELS = ["O1", "O2", "O3", "Os"] as const;
export type OptLevel = (typeof OPT_LEVELS)[number];

export interface OptimizerSource {
  /** Directory of a binaryen package under test; null = the project's own. */
  path: string | null;
  /** Shell command (wasm-opt compatible); overrides `path`. */
  cmd: string | null;
}

/** Thrown when the optimizer under test fails or emits an invalid module (a finding, not a usage error). */
export class OptimizerFailure extends Error {}

type BinaryenLike = {
  readBinary(b: Uint8Array): any;
  setOptimizeLevel(n: number): void;
  setShrinkLevel(n: number): void;
  Features: Record<string, number>;
  ready?: Promise<unknown>;
};
const loaded = new Map<string, Promise<BinaryenLike>>();

function loadBinaryen(path: string | null): Promise<BinaryenLike> {
  const key = path ?? "<own>";
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      if (!path) return (await ownBinaryen()) as unknown as BinaryenLike;
      const dir = resolve(path);
      let entry: string;
      const pkg = join(dir, "package.json");
      if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "binaryen") {
        entry = createRequire(pkg).resolve(dir);
      } else {
        try {
          entry = createRequire(join(dir, "noop.js")).resolve("binaryen");
        } catch {
          throw new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${path}: no binaryen package there`);
        }
      }
      const mod: any = await import(pathToFileURL(entry).href);
      const b = (mod.default ?? mod) as BinaryenLike;
      if (b.ready) await b.ready;
      if (typeof b.readBinary !== "function") throw new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${path}: not a binaryen.js build`);
      return b;
    })();
    loaded.set(key, p);
  }
  return p;
}

/** Check that an optimizer source can be loaded (usage errors surface before a campaign starts). */
export async function checkOptimizer(src: OptimizerSource): Promise<void> {
  if (!src.cmd) await loadBinaryen(src.path);
}

export async function optimize(bytes: Uint8Array, level: OptLevel, src: OptimizerSource): Promise<Uint8Array> {
  if (src.cmd) return optimizeCmd(bytes, level, src.cmd);
  const b = await loadBinaryen(src.path);
  let m: any;
  try {
    m = b.readBinary(bytes);
  } catch (e) {
    throw new OptimizerFailure(`optimizer cannot read the module: ${String(e).split("\n")[0]}`);
  }
  try {
    const F = b.Features;
    m.setFeatures((F.MVP ?? 0) | (F.Atomics ?? 0) | (F.BulkMemory ?? 0) | (F.SignExt ?? 0) | (F.MutableGlobals ?? 0) | (F.Multivalue ?? 0));
    b.setOptimizeLevel(level === "Os" ? 2 : Number(level[1]));
    b.setShrinkLevel(level === "Os" ? 1 : 0);
    m.optimize();
    if (!m.validate()) throw new OptimizerFailure(`optimizer -${level} produced a module that does not validate`);
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

async function optimizeCmd(bytes: Uint8Array, level: OptLevel, cmd: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "ff-wasmopt-"));
  try {
    const inp = join(dir, "in.wasm");
    const out = join(dir, "out.wasm");
    await writeFile(inp, bytes);
    const feat = /enable-threads|--all-features|(^|\s)-all(\s|$)|--mvp-features/.test(cmd) ? "" : " --enable-threads";
    const levelFlag = /(^|\s)-O[0-4sz]?(\s|$)/.test(cmd) ? "" : ` -${level}`;
    const line = `${cmd}${feat}${levelFlag} '${inp}' -o '${out}'`;
    await new Promise<void>((res, rej) =>
      execFile("/bin/sh", ["-c", line], { timeout: 60_000 }, (err, _o, stderr) =>
        err ? rej(new OptimizerFailure(`optimizer command failed: ${(stderr || err.message).split("\n")[0]}`)) : res(),
      ),
    );
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
