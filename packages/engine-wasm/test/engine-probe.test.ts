// Engines of any age (issue 25, item 5): a Bun release that cannot run the runner at all (Bun 1.0.0 from
// npm dies at once: its stdin stream fails with `EINVAL: Invalid argument` from fstat). Here such a
// release is a script that answers --version and dies the same way, so the test needs no 100 MB download.
// It must not turn every program into a `crash` finding, nor be offered by a worker.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJob, type JobFor } from "@fuzzfarm/protocol";
import { createWasmEngine, generate, Harness, parseGenConfig } from "../src/index";

const dir = mkdtempSync(join(tmpdir(), "ff-old-bun-"));
const bun = join(dir, "bun");
writeFileSync(bun, `#!/bin/sh\nif [ "$1" = --version ]; then echo 1.0.0; exit 0; fi\necho 'EINVAL: Invalid argument' >&2\necho ' syscall: "fstat"' >&2\nexit 1\n`);
chmodSync(bun, 0o755);
const ctx = () => ({ signal: new AbortController().signal, workDir: dir, onProgress: () => {} });

test.after(() => rmSync(dir, { recursive: true, force: true }));

test("a run comparing with an engine that cannot run the runner is one FF_ERR_CONFIG naming it, not a crash per program", async () => {
  const h = new Harness({}, { engines: [{ kind: "bun", path: bun }] });
  try {
    await assert.rejects(h.check(generate(0, parseGenConfig({ preset: "small" })), { runs: 2, tiers: false, optLevels: [], engines: ["bun"] }), (e: Error) => {
      assert.match(e.message, /^engine bun \(bun 1\.0\.0 \(JavaScriptCore\)\) cannot run the wasm runner: EINVAL: Invalid argument \(exit code 1\)$/);
      return true;
    });
  } finally {
    await h.close();
  }
});

test("a worker leaves such a Bun out of its offer, and a job naming it is refused with the reason", async () => {
  const e = createWasmEngine({ bunPath: bun, denoPath: null });
  assert.ok(e.capabilities!().includes("bun"), "offered before the self-test (the binary exists)");
  await e.selfTest();
  assert.deepEqual(e.capabilities!().filter((id) => id.startsWith("bun")), []);
  const job = parseJob({ jobId: "j", campaignId: "c", engine: "wasm", target: { name: "t", path: "small" }, budget: { runs: 4, seconds: 30 }, options: { engines: ["bun"] } }) as JobFor<"wasm">;
  const r = await e.run(job, ctx());
  assert.equal(r.error?.kind, "bad-job");
  assert.match(r.error!.message, /unknown engine configuration 'bun'.*left out at start-up: engine bun \(bun 1\.0\.0 .*cannot run the wasm runner: EINVAL/);
  assert.equal(r.execs, 0);
});
