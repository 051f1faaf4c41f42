// The engine proves itself at start-up (Fuzzilli's startup tests): one probe
// input that must crash and one that must not, each in a real executor.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { reproduceOnce } from "./reproduce";

const probe = (name: string) => fileURLToPath(new URL(`./probes/${name}`, import.meta.url));

export async function selfTest(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), "fuzzfarm-input-selftest-"));
  const ctx = { signal: new AbortController().signal, workDir };
  const input = Buffer.from("!").toString("base64");
  const repro = { engine: "input" as const, input, options: { timeoutMs: 10_000 } };
  try {
    const crash = await reproduceOnce({ path: probe("crash-probe.ts") }, repro, ctx);
    if (crash.kind !== "crash" || crash.crashKind !== "uncaught" || !crash.message.includes("self-test probe")) {
      throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `input engine: crash probe ended as ${describe(crash)}`);
    }
    const ok = await reproduceOnce({ path: probe("ok-probe.cjs") }, repro, ctx);
    if (ok.kind !== "ok") throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `input engine: ok probe ended as ${describe(ok)}`);
  } catch (e) {
    if (e instanceof FuzzFarmError && e.code === "FF_ERR_ENGINE_SELFTEST") throw e;
    throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `input engine: ${oneLine(e)}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function describe(o: { kind: string; message?: string }): string {
  return o.kind === "ok" ? "ok" : `${o.kind}: ${o.message ?? ""}`.split("\n")[0]!;
}
