// Where the target is and which directory its coverage is relative to.
// Checked in the engine before any process starts, so a wrong path is a
// one-line job error rather than a crashed executor.
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { JobError } from "@fuzzfarm/protocol";

export interface ResolvedTarget {
  path: string;
  root: string;
}

/** The nearest ancestor holding `.git`, else the target's own directory. */
export function defaultRoot(targetPath: string): string {
  let dir = dirname(targetPath);
  for (;;) {
    if (existsSync(resolve(dir, ".git"))) return dir;
    const up = dirname(dir);
    if (up === dir) return dirname(targetPath);
    dir = up;
  }
}

export function resolveTarget(path: string, root: string | null): ResolvedTarget | { error: JobError } {
  const abs = resolve(path);
  let isFile = false;
  try {
    isFile = statSync(abs).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return { error: { kind: "target-not-found", message: `target not found: ${abs}` } };
  return { path: abs, root: root ? resolve(root) : defaultRoot(abs) };
}
