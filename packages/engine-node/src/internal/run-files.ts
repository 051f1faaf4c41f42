// The files of one run under the preload: a private folder holding the
// config the preload reads at start (cfg.json, named by FUZZFARM_NODE) and
// the trace it writes at exit (trace.json). Shared by the spawned run
// (spawn.ts) and the in-process one (in-process.ts).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReplaySpec, Trace } from "./trace";

/** What the preload reads from cfg.json (preload/index.cjs). */
export interface PreloadConfig {
  strategy: string;
  params: Record<string, number>;
  seed: number;
  timeoutMs: number;
  stallMs: number;
  record: boolean;
  root: string;
  replay: ReplaySpec | null;
  coverage: boolean;
}

/**
 * Creates the run's folder (under `parent`, a directory the run's process can write: the sandbox's job directory;
 * default tmpdir) and its cfg.json; the caller removes `dir` when the run is over.
 */
export function writeRunFiles(cfg: PreloadConfig, parent = tmpdir()): { dir: string; cfgFile: string; traceOut: string } {
  const dir = mkdtempSync(join(parent, "ff-node-"));
  const traceOut = join(dir, "trace.json");
  const cfgFile = join(dir, "cfg.json");
  writeFileSync(cfgFile, JSON.stringify({ ...cfg, traceOut }));
  return { dir, cfgFile, traceOut };
}

/** The trace a run wrote, or null when it wrote none (killed) or a cut one. */
export function readTrace(file: string): Trace | null {
  try { return JSON.parse(readFileSync(file, "utf8")) as Trace; } catch { return null; }
}
