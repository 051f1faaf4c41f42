// Evidence that each bug is real and reachable: the hand-written module of
// bugs/<id>/repro.wat (not a fuzzer input) optimized at -O2 by the affected and
// by the fixed release, then run in this process's V8.
//   node --import tsx bench/wasm-real-bugs/confirm.ts [--only id]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeWat, optimize } from "@fuzzfarm/engine-wasm";
import { BUGS, type RealBug } from "./bugs";
import { installReleases, versionDir } from "./install";

const WA = (globalThis as any).WebAssembly;
const here = dirname(fileURLToPath(import.meta.url));

async function runF(bytes: Uint8Array): Promise<number> {
  const memory = new WA.Memory({ initial: 1, maximum: 1, shared: true });
  const { instance } = await WA.instantiate(bytes, { env: { memory } });
  return instance.exports.f();
}

async function outcome(bytes: Uint8Array, version: string): Promise<string> {
  try {
    return String(await runF(await optimize(bytes, "O2", { path: versionDir(version), cmd: null })));
  } catch (e) {
    return String(e).includes("does not validate") ? "invalid" : `error: ${String(e).split("\n")[0]}`;
  }
}

export interface Confirmation { id: string; plain: number; affected: string; fixed: string; confirmed: boolean }

export async function confirm(bug: RealBug): Promise<Confirmation> {
  const bytes = await encodeWat(readFileSync(join(here, "bugs", bug.id, "repro.wat"), "utf8"));
  const plain = await runF(bytes);
  const affected = await outcome(bytes, bug.affected);
  const fixed = await outcome(bytes, bug.fixed);
  const broken = bug.symptom === "invalid" ? affected === "invalid" : affected !== String(bug.expected) && !affected.startsWith("error");
  return { id: bug.id, plain, affected, fixed, confirmed: plain === bug.expected && broken && fixed === String(bug.expected) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
  const bugs = BUGS.filter((b) => !only || b.id === only);
  installReleases([...new Set(bugs.flatMap((b) => [b.affected, b.fixed]))]);
  console.log("bug                      expected  unoptimized  affected -O2                 fixed -O2       confirmed");
  for (const b of bugs) {
    const c = await confirm(b);
    console.log(`${b.id.padEnd(24)} ${String(b.expected).padStart(8)}  ${String(c.plain).padStart(11)}  ${(b.affected + ": " + c.affected).padEnd(28)} ${(b.fixed.replace("-nightly.", "-n") + ": " + c.fixed).padEnd(15)} ${c.confirmed ? "yes" : "NO"}`);
  }
}
