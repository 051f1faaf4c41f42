// Checks that a target can be run at all, so bad targets become a job
// error rather than a stream of bogus findings.
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import type { JobError } from "@fuzzfarm/protocol";

const LOAD_FAILURE = /SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|ERR_UNKNOWN_FILE_EXTENSION|ERR_REQUIRE_ESM/;

/** Missing file or directory → target-not-found; syntax error → target-invalid. */
export function checkTarget(path: string): JobError | null {
  if (!existsSync(path)) return { kind: "target-not-found", message: `no such file: ${path}` };
  if (!statSync(path).isFile()) return { kind: "target-invalid", message: `not a file: ${path}` };
  if (/\.(c|m)?js$/.test(path)) {
    const r = spawnSync(process.execPath, ["--check", path], { encoding: "utf8", timeout: 30_000 });
    if (r.status !== 0) return { kind: "target-invalid", message: firstErrorLine(r.stderr) || `node --check failed for ${path}` };
  }
  return null;
}

/** A baseline run that died while loading (missing module, bad import) before any callback ran. */
export function loadFailure(stderr: string, deliveredEvents: number): string | null {
  return deliveredEvents === 0 && LOAD_FAILURE.test(stderr) ? firstErrorLine(stderr) : null;
}

function firstErrorLine(stderr: string): string {
  return stderr.split("\n").find((l) => /Error|error:/.test(l))?.trim() ?? stderr.trim().split("\n")[0] ?? "";
}
