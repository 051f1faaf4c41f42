// The optimizer under test, pluggable:
//   - the project's own binaryen.js (default);
//   - `--optimizer PATH`: a directory holding any version of the `binaryen` npm
//     package (the package directory itself, or a directory whose node_modules has it);
//   - `--optimizer-cmd 'wasm-opt ...'`: a command run as `CMD IN.wasm -o OUT.wasm`
//     (`--enable-threads` is appended unless the command enables features itself).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FuzzFarmError, WASM_OPT_LEVELS } from "@fuzzfarm/protocol";
import { ownBinaryen } from "./wasm-tools";
import { binaryenEntry, hostOf, OptimizerFailure } from "./optimizer/host";

export const OPT_LEVELS = WASM_OPT_LEVELS;
export type OptLevel = (typeof OPT_LEVELS)[number];

export interface OptimizerSource {
  /** Directory of a binaryen package under test; null = the project's own. */
  path: string | null;
  /** Shell command (wasm-opt compatible); overrides `path`. */
  cmd: string | null;
}

export { OptimizerFailure };

type BinaryenLike = {
  readBinary(b: Uint8Array): any;
  setOptimizeLevel(n: number): void;
  setShrinkLevel(n: number): void;
  Features: Record<string, number>;
  ready?: Promise<unknown>;
};
const loaded = new Map<string, Promise<BinaryenLike>>();
/** Bumped when a binaryen.js instance aborts: its heap is then unusable, the next load is a fresh instance. */
const generation = new Map<string, number>();

function loadBinaryen(path: string | null): Promise<BinaryenLike> {
  const key = path ?? "<own>";
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      if (!path) return (await ownBinaryen()) as unknown as BinaryenLike;
      const entry = binaryenEntry(path);
      const gen = generation.get(key) ?? 0;
      const mod: any = await import(pathToFileURL(entry).href + (gen ? `?instance=${gen}` : ""));
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
  if (src.cmd) return;
  if (src.path) await hostOf(src.path).start();
  else await loadBinaryen(null);
}

/**
 * Optimize at `level` with the optimizer under test. A release given by directory runs in a process
 * of its own (optimizer/host.ts); the project's own binaryen.js runs here.
 */
export async function optimize(bytes: Uint8Array, level: OptLevel, src: OptimizerSource): Promise<Uint8Array> {
  if (src.cmd) return optimizeCmd(bytes, level, src.cmd);
  if (src.path) return hostOf(src.path).optimize(bytes, level);
  const b = await loadBinaryen(null);
  // An abort (assertion, trap) inside binaryen.js leaves its heap unusable: drop the instance.
  const aborted = (e: unknown): OptimizerFailure => {
    if (!(e instanceof OptimizerFailure)) {
      const key = src.path ?? "<own>";
      generation.set(key, (generation.get(key) ?? 0) + 1);
      loaded.delete(key);
    }
    return e instanceof OptimizerFailure ? e : new OptimizerFailure(`optimizer -${level} crashed: ${String(e).split("\n")[0]}`);
  };
  let m: any;
  try {
    m = b.readBinary(bytes);
  } catch (e) {
    aborted(e);
    throw new OptimizerFailure(`optimizer cannot read the module: ${String(e).split("\n")[0]}`);
  }
  try {
    m.setFeatures(optimizerFeatures(b.Features));
    b.setOptimizeLevel(level === "Os" ? 2 : Number(level[1]));
    b.setShrinkLevel(level === "Os" ? 1 : 0);
    m.optimize();
    if (!m.validate()) throw new OptimizerFailure(`optimizer -${level} produced a module that does not validate`);
    return m.emitBinary();
  } catch (e) {
    throw aborted(e);
  } finally {
    try {
      m.dispose();
    } catch {
      // the instance aborted; it is already dropped
    }
  }
}

/**
 * The features generated programs use: threads, bulk memory, sign extension, mutable globals,
 * multivalue. Binaryen 121+ splits bulk memory in two (BulkMemoryOpt must accompany BulkMemory).
 */
export function optimizerFeatures(F: Record<string, number>): number {
  // binaryen.js 121 has the BulkMemoryOpt bit (1 << 19) without naming it in `Features`.
  const bulkOpt = F.BulkMemoryOpt ?? ((F.All ?? 0) & (1 << 19));
  return (F.MVP ?? 0) | (F.Atomics ?? 0) | (F.BulkMemory ?? 0) | bulkOpt | (F.SignExt ?? 0) | (F.MutableGlobals ?? 0) | (F.Multivalue ?? 0);
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

/**
 * Which of `passes` change a module when run alone (binaryen.js `runPasses`) with the optimizer
 * under test: the pass coverage of a campaign's programs. A pass the release does not know is
 * reported as not changing anything.
 */
export async function passEffects(bytes: Uint8Array, passes: readonly string[], src: OptimizerSource): Promise<Record<string, boolean>> {
  const b = (await loadBinaryen(src.path)) as BinaryenLike & { setOptimizeLevel(n: number): void };
  const read = (): any => {
    const m = b.readBinary(bytes);
    m.setFeatures(optimizerFeatures(b.Features));
    return m;
  };
  const hex = (u: Uint8Array): string => Buffer.from(u).toString("hex");
  const base = read();
  const before = hex(base.emitBinary());
  base.dispose();
  b.setOptimizeLevel(2);
  const out: Record<string, boolean> = {};
  for (const pass of passes) {
    const m = read();
    try {
      m.runPasses([pass]);
      out[pass] = hex(m.emitBinary()) !== before;
    } catch {
      out[pass] = false;
    } finally {
      m.dispose();
    }
  }
  return out;
}
