// The state `fuzzfarm ci` carries between runs, in a directory instead of
// the database: CI gives every run a fresh database (a service container),
// so buckets, their reproducers and history, and the corpus live in files
// the workflow keeps (actions/cache or a storage branch) and every run reads
// at its start and writes at its end. Format (version 1, docs in
// infra/github/README.md "State directory"):
//
//   <dir>/fuzzfarm-state.json        {"format": "fuzzfarm-ci-state", "version": 1}
//   <dir>/.gitignore                 "*": the directory never shows up in the user's tree
//   <dir>/buckets/<id>.json          one bucket per file; id = s_ + sha256(target, signature)
//   <dir>/corpus/<target>/<sha256>   corpus inputs, content-addressed
//
// Every file is named by what it holds, so two runs writing the same
// directory (two jobs' caches restored and merged, a storage branch merged)
// only ever add files or rewrite one bucket's file, and a bucket file merges
// its history with the one on disk before it is replaced (write + rename).
// Paths inside the checkout are stored relative to it ({{repo}}): the state
// is the same for a clone at any path on any machine.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";

export const STATE_FORMAT = "fuzzfarm-ci-state";
export const STATE_VERSION = 1;
/** Stands for the checkout's root in stored text (stacks, reproducer options). */
export const ROOT_TOKEN = "{{repo}}";

export interface BucketEvent {
  /** ISO time. */
  at: string;
  commit: string;
  /** What the run saw: new, pre-existing, fixed, unreproduced. */
  event: string;
}

/** One bucket of the state directory (buckets/<id>.json). */
export interface StateBucket {
  version: 1;
  id: string;
  /** Repository-relative path of the target. */
  target: string;
  engine: string;
  kind: string;
  title: string;
  /** Crash signature with repository-relative paths. */
  signature: string;
  /** open, or fixed once a run saw it on the base and not on the head. */
  status: "open" | "fixed";
  history: BucketEvent[];
  /** The first report: message, stack and artifact ({reproducer, detail}), paths under the checkout as {{repo}}. */
  report: { message: string; stack: string; artifact: unknown };
}

export const stateBucketId = (target: string, signature: string) => `s_${createHash("sha256").update(`${target}\0${signature}`).digest("hex").slice(0, 16)}`;

/** Replace the checkout's root in a JSON-able value by {{repo}} (store), or back (load). */
function swapRoot<T>(value: T, from: string, to: string): T {
  const esc = (s: string) => JSON.stringify(s).slice(1, -1);
  return JSON.parse(JSON.stringify(value).split(esc(from)).join(esc(to))) as T;
}
export const relocate = <T>(value: T, root: string): T => swapRoot(value, root.replace(/\/+$/, ""), ROOT_TOKEN);
export const localize = <T>(value: T, root: string): T => swapRoot(value, ROOT_TOKEN, root.replace(/\/+$/, ""));

const targetKey = (target: string) => target.replace(/[^A-Za-z0-9._-]+/g, "_");

function writeAtomic(path: string, text: string | Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export class StateDir {
  constructor(readonly dir: string) {}

  /** Create the directory (with its .gitignore and format file) or check the format of an existing one. */
  open(): this {
    const meta = join(this.dir, "fuzzfarm-state.json");
    if (existsSync(meta)) {
      let m: { format?: string; version?: number };
      try {
        m = JSON.parse(readFileSync(meta, "utf8"));
      } catch (e) {
        throw new FuzzFarmError("FF_ERR_CONFIG", `state directory ${this.dir}: fuzzfarm-state.json is not JSON (${(e as Error).message})`);
      }
      if (m.format !== STATE_FORMAT || typeof m.version !== "number") throw new FuzzFarmError("FF_ERR_CONFIG", `state directory ${this.dir} is not a FuzzFarm CI state directory`);
      if (m.version > STATE_VERSION) throw new FuzzFarmError("FF_ERR_CONFIG", `state directory ${this.dir} has format version ${m.version}; this FuzzFarm reads up to ${STATE_VERSION}: upgrade it`);
    }
    mkdirSync(join(this.dir, "buckets"), { recursive: true });
    mkdirSync(join(this.dir, "corpus"), { recursive: true });
    if (!existsSync(join(this.dir, ".gitignore"))) writeFileSync(join(this.dir, ".gitignore"), "# FuzzFarm CI state: kept by the workflow (cache or storage branch), not by git\n*\n");
    if (!existsSync(meta)) writeAtomic(meta, `${JSON.stringify({ format: STATE_FORMAT, version: STATE_VERSION })}\n`);
    return this;
  }

  /** The stored buckets of one target (repository-relative path); unreadable files are skipped with a line. */
  buckets(target: string, log: (line: string) => void): StateBucket[] {
    const dir = join(this.dir, "buckets");
    const out: StateBucket[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
      try {
        const b = JSON.parse(readFileSync(join(dir, f), "utf8")) as StateBucket;
        if (b.target === target) out.push(b);
      } catch (e) {
        log(`state: ${f} skipped: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    return out;
  }

  /** Write a bucket, its history merged with the file's (a concurrent run's events are kept). */
  saveBucket(b: StateBucket): void {
    const path = join(this.dir, "buckets", `${b.id}.json`);
    let history = b.history;
    if (existsSync(path)) {
      try {
        const old = JSON.parse(readFileSync(path, "utf8")) as StateBucket;
        const seen = new Set(b.history.map((e) => `${e.at}|${e.commit}|${e.event}`));
        history = [...old.history.filter((e) => !seen.has(`${e.at}|${e.commit}|${e.event}`)), ...b.history].sort((x, y) => x.at.localeCompare(y.at));
      } catch {
        // an unreadable file is replaced by this run's
      }
    }
    writeAtomic(path, `${JSON.stringify({ ...b, history }, null, 2)}\n`);
  }

  /** Corpus inputs of a target. */
  corpus(target: string): Buffer[] {
    const dir = join(this.dir, "corpus", targetKey(target));
    if (!existsSync(dir)) return [];
    return readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n)).sort().map((n) => readFileSync(join(dir, n)));
  }

  /** Add inputs to a target's corpus; returns how many were not there yet. */
  addCorpus(target: string, inputs: Buffer[]): number {
    const dir = join(this.dir, "corpus", targetKey(target));
    mkdirSync(dir, { recursive: true });
    let added = 0;
    for (const input of inputs) {
      const path = join(dir, createHash("sha256").update(input).digest("hex"));
      if (existsSync(path)) continue;
      writeAtomic(path, input);
      added++;
    }
    return added;
  }
}
