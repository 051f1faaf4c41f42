// Resolving a requested path inside a directory, refusing every way out:
// "..", absolute paths, NUL bytes, backslashes, and symlinks pointing outside
// (checked on the real path). Used by artifact downloads and the coverage report.
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";

const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** The real path of regular file `rel` under `root`; FF_ERR_NOT_FOUND for anything else (missing, outside, not a file). */
export async function resolveInside(root: string, rel: string): Promise<string> {
  const notFound = () => new FuzzFarmError("FF_ERR_NOT_FOUND", "no such artifact");
  if (!rel || rel.includes("\0") || rel.includes("\\") || isAbsolute(rel)) throw notFound();
  if (rel.split("/").some((s) => s === "..")) throw notFound();
  const base = resolve(root);
  const wanted = resolve(base, rel);
  if (!inside(base, wanted) || wanted === base) throw notFound();
  let realBase: string;
  let real: string;
  try {
    realBase = await realpath(base);
    real = await realpath(wanted);
  } catch {
    throw notFound();
  }
  if (!inside(realBase, real)) throw notFound();
  const st = await stat(real).catch(() => null);
  if (!st?.isFile()) throw notFound();
  return real;
}
