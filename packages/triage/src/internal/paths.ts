// Paths as they appear in frames, made stable across machines and runs:
// file:// URLs decoded, backslashes turned into slashes, the target's root
// stripped, dependencies shown from their last node_modules/, temp dirs
// masked. Pure string work: nothing here touches the file system.
import { re } from "./patterns";

/** A file URL or path as a plain slash-separated path (unchanged when it is neither). */
export function decodeLocation(loc: string): string {
  if (loc.startsWith("file://")) {
    let p = loc.slice("file://".length);
    if (p.startsWith("localhost/")) p = p.slice("localhost".length);
    try {
      p = decodeURIComponent(p);
    } catch {
      // a malformed escape: keep the text as printed
    }
    // file:///C:/x -> C:/x
    if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1);
    return p;
  }
  if (/^[A-Za-z]:\\/.test(loc)) return loc.replace(/\\/g, "/");
  return loc;
}

function normalizeRoot(rootDir: string | undefined): string {
  if (!rootDir) return "";
  let r = decodeLocation(rootDir).replace(/\\/g, "/");
  while (r.length > 1 && r.endsWith("/")) r = r.slice(0, -1);
  return r;
}

/**
 * The display path of a decoded location: relative to rootDir when inside it,
 * from the last `node_modules/` for dependencies outside it, temp dirs masked.
 */
export function relativePath(path: string, rootDir: string | undefined): string {
  const root = normalizeRoot(rootDir);
  if (root && root !== "/" && path.startsWith(root + "/")) return path.slice(root.length + 1);
  if (root === "/" && path.startsWith("/")) return path.slice(1);
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) return path.slice(nm + 1);
  return path.replace(re("mask-tmp-path"), "<tmp>");
}
