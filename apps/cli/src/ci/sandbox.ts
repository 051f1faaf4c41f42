// The sandbox `fuzzfarm ci` runs a pull request's code in: the worker's
// (packages/worker sandbox.ts), settled once per run. Under "auto" a machine
// without one is an error here, unlike for a worker of one's own farm: CI
// runs code from anyone who can open a pull request. FUZZFARM_SANDBOX=none
// (or "sandbox": "none" in the config) still runs it unsandboxed, said in a line.
import type { Config } from "@fuzzfarm/config";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { resolveSandbox, type ResolvedSandbox } from "@fuzzfarm/worker";

export async function ciSandbox(config: Pick<Config, "sandbox">, log: (line: string) => void): Promise<ResolvedSandbox> {
  const s = await resolveSandbox(config.sandbox);
  if (s.name === "none" && config.sandbox === "auto")
    throw new FuzzFarmError("FF_ERR_CONFIG", `no sandbox for the pull request's code on this machine (${s.why}); FUZZFARM_SANDBOX=none runs it unsandboxed`);
  log(s.name === "none" ? "sandbox none (configured): the pull request's code runs with this machine's network and files" : `sandbox ${s.name}: the pull request's code runs with loopback only${s.name === "fs" ? ", read-only files, the data directory hidden" : ""}`);
  return s;
}
