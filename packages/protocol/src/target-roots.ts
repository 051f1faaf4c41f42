// The target-roots rule, shared by the two parties that enforce it: a
// worker refuses jobs whose target lies outside its operator's roots
// (packages/worker policy), and the dashboard's CI API refuses to start
// campaigns for such targets. Symlinks are resolved on both sides, so a
// link inside a root that points elsewhere is outside.
import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** True when `path` (symlinks resolved) is one of `roots` or lies under one of them. */
export function isUnderTargetRoots(path: string, roots: readonly string[]): boolean {
  const target = real(path);
  return roots.map(real).some((r) => target === r || target.startsWith(r.endsWith(sep) ? r : r + sep));
}
