// V8 block coverage (taken by the preload at exit) to istanbul, and to
// feature keys `cov:<relfile>:s<N>` (statements of the program that ran).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { relative, sep } from "node:path";
import type { V8ScriptCoverage } from "./trace";

const require = createRequire(import.meta.url);
// CommonJS packages without bundled types: typed here as far as we use them.
type V8ToIstanbul = (path: string, wrapperLength?: number) => {
  load(): Promise<void>;
  applyCoverage(fns: V8ScriptCoverage["functions"]): void;
  toIstanbul(): Record<string, IstanbulFileCoverage>;
};
export interface IstanbulFileCoverage { path: string; s: Record<string, number>; statementMap: Record<string, unknown>; [k: string]: unknown }
interface CoverageMap { merge(data: Record<string, unknown>): void; toJSON(): Record<string, IstanbulFileCoverage> }
const v8toIstanbul = require("v8-to-istanbul") as V8ToIstanbul;
const { createCoverageMap } = require("istanbul-lib-coverage") as { createCoverageMap(data?: Record<string, unknown>): CoverageMap };

/** Convert one run's V8 coverage to istanbul file coverage. */
export async function toIstanbul(scripts: V8ScriptCoverage[]): Promise<Record<string, IstanbulFileCoverage>> {
  const out: Record<string, IstanbulFileCoverage> = {};
  for (const s of scripts) {
    const file = s.url.startsWith("file://") ? fileURLToPath(s.url) : s.url;
    try {
      const conv = v8toIstanbul(file, 0);
      await conv.load();
      conv.applyCoverage(s.functions);
      Object.assign(out, conv.toIstanbul());
    } catch {
      // a file that changed or vanished since the run: no coverage for it
    }
  }
  return out;
}

/** Feature keys of the statements a run covered, relative to `root`. */
export function coverageFeatures(data: Record<string, IstanbulFileCoverage>, root: string): string[] {
  const keys: string[] = [];
  for (const fc of Object.values(data)) {
    const rel = relative(root, fc.path).split(sep).join("/");
    for (const [id, n] of Object.entries(fc.s)) if (n > 0) keys.push(`cov:${rel}:s${id}`);
  }
  return keys;
}

/** Statements known in a coverage map (the coverage part of featureTotal). */
export function statementTotal(data: Record<string, IstanbulFileCoverage>): number {
  let n = 0;
  for (const fc of Object.values(data)) n += Object.keys(fc.statementMap).length;
  return n;
}

/** Accumulates istanbul coverage over the runs of a job. */
export class CoverageAccumulator {
  private map = createCoverageMap({});
  add(data: Record<string, IstanbulFileCoverage>): void { this.map.merge(data); }
  toJSON(): Record<string, IstanbulFileCoverage> { return this.map.toJSON(); }
}
