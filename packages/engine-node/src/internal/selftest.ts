// The engine proves itself before taking jobs (Fuzzilli's start-up tests):
// every hook must fire on this Node (these are internals that move between
// majors), one correct probe must pass under a strategy that holds every
// completion, and one crashing probe must be reported as an uncaught crash
// with the interceptor's frames stripped from its stack.
import { fileURLToPath } from "node:url";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { execute } from "./execute";
import { PRELOAD_DIR } from "./paths";

const probe = (name: string) => fileURLToPath(new URL(`./probes/${name}`, import.meta.url));
const REQUIRED_KINDS = ["fs", "timeout", "immediate", "fs.promise", "zlib", "crypto", "message", "accept", "connect", "read", "close", "exit"];

export async function selfTest(): Promise<void> {
  const fail = (msg: string): never => { throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", msg); };
  const ok = await execute({ script: probe("hooks-probe.cjs"), args: [], strategy: "shuffle", params: { holdProb: 1 }, seed: 1, timeoutMs: 15_000 });
  if (!ok.trace) fail(`the interceptor did not start on Node ${process.version}: ${ok.result.stderr.trim().split("\n")[0] ?? ""}`);
  const o = ok.outcome;
  if (o.kind !== "ok") fail(`the must-pass probe failed under the fuzzer: ${o.message}`);
  const kinds = new Set(ok.trace!.events.map((e) => e.kind));
  const silent = REQUIRED_KINDS.filter((k) => !kinds.has(k));
  if (silent.length) fail(`hooks stayed silent on Node ${process.version}: ${silent.join(", ")}`);
  if (!ok.trace!.events.some((e) => e.held)) fail("the fuzzer held no completion under shuffle holdProb=1");
  const bad = await execute({ script: probe("crash-probe.cjs"), args: [], strategy: "shuffle", params: { holdProb: 1 }, seed: 1, timeoutMs: 15_000 });
  if (bad.outcome.kind !== "crash" || bad.outcome.crashKind !== "uncaught" || !bad.outcome.message.includes("fuzzfarm self-test probe")) {
    fail(`the must-crash probe was not reported as an uncaught crash (got ${bad.outcome.kind})`);
  }
  if (bad.outcome.kind === "crash" && bad.outcome.stack.includes(PRELOAD_DIR)) fail("the interceptor's frames leaked into a crash stack");
}
