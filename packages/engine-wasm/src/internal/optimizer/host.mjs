// @ts-check
// A binaryen.js release under test, in a process of its own. Old releases end
// the whole process on input they cannot read (`Fatal: error in parsing wasm
// binary` calls exit()), and an abort leaves a release's heap unusable: either
// would take the worker down with it if it ran in the worker's process.
// Started by optimizer/host.ts with Node IPC: argv[2] = the package's entry file.
//   parent -> {id, level: "O1".."Os", bytes}   child -> {id, ok: true, bytes} | {id, ok: false, message}
//   first message of the child: {ready: true, version, api} or {ready: false, message}
// Only options the release has are asked for (an old release has no `Features`
// object and no `setFeatures`: it reads what it can by default).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";

const entry = process.argv[2] ?? "";
const require = createRequire(import.meta.url);
/** @param {unknown} m */
const send = (m) => process.send?.(m);

/** The package.json above the entry file. @param {string} file */
function packageVersion(file) {
  for (let d = dirname(file); d !== dirname(d); d = dirname(d)) {
    try {
      const pkg = JSON.parse(readFileSync(join(d, "package.json"), "utf8"));
      if (pkg.name === "binaryen" || pkg.version) return String(pkg.version);
    } catch {
      // not here
    }
  }
  return "unknown";
}

/**
 * The features generated programs may use, as far as the release names them. Binaryen 121 has
 * the BulkMemoryOpt bit (1 << 19) without naming it; it must accompany BulkMemory there.
 * @param {Record<string, number> | undefined} F
 */
function featureMask(F) {
  if (!F) return null;
  const bulkOpt = F.BulkMemoryOpt ?? ((F.All ?? 0) & (1 << 19));
  return (F.MVP ?? 0) | (F.Atomics ?? 0) | (F.BulkMemory ?? 0) | bulkOpt | (F.SignExt ?? 0) | (F.MutableGlobals ?? 0) | (F.Multivalue ?? 0);
}

async function main() {
  /** @type {any} */
  let b;
  try {
    const mod = await import(entry.endsWith(".mjs") ? entry : "file://" + entry).catch(() => require(entry));
    b = mod.default ?? mod;
    if (b.ready) await b.ready;
    if (typeof b.readBinary !== "function") throw new Error("not a binaryen.js build (no readBinary)");
  } catch (e) {
    send({ ready: false, message: String(e instanceof Error ? e.message : e).split("\n")[0] });
    process.exit(1);
  }
  const mask = featureMask(b.Features);
  const api = { features: mask !== null, setShrinkLevel: typeof b.setShrinkLevel === "function" };
  send({ ready: true, version: packageVersion(entry), api });
  process.on("message", (/** @type {{id: number, level: string, bytes: Uint8Array}} */ req) => {
    let m;
    try {
      m = b.readBinary(req.bytes);
    } catch (e) {
      send({ id: req.id, ok: false, message: `optimizer cannot read the module: ${String(e).split("\n")[0]}` });
      process.exit(3); // the instance may have aborted: the next request gets a fresh process
    }
    try {
      if (mask !== null && typeof m.setFeatures === "function") m.setFeatures(mask);
      b.setOptimizeLevel(req.level === "Os" ? 2 : Number(req.level[1]));
      if (api.setShrinkLevel) b.setShrinkLevel(req.level === "Os" ? 1 : 0);
      m.optimize();
      if (!m.validate()) {
        send({ id: req.id, ok: false, message: `optimizer -${req.level} produced a module that does not validate` });
        return;
      }
      const out = m.emitBinary();
      // a copy: the result may be a view of the release's heap, which dispose() frees
      send({ id: req.id, ok: true, bytes: Uint8Array.from(out instanceof Uint8Array ? out : out.binary) });
    } catch (e) {
      send({ id: req.id, ok: false, message: `optimizer -${req.level} crashed: ${String(e).split("\n")[0]}` });
      process.exit(3);
    } finally {
      try {
        m.dispose();
      } catch {
        // aborted instance; the process is on its way out
      }
    }
  });
  process.on("disconnect", () => process.exit(0));
}

void main();
