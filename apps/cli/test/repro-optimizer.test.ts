// `fuzzfarm repro <bucket>` runs an optimizer only when this machine's
// operator lists it: a wasm bucket whose campaign and stored report name an
// optimizer command is refused in one line with FUZZFARM_ALLOWED_OPTIMIZERS=none
// (and by default), and the command never runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCampaign, recordCrash, upsertTarget } from "@fuzzfarm/db";
import { runCli, testFarm } from "./helpers";

test("repro of a bucket whose stored run names an optimizer command: refused unless allowed, the command never runs", async () => {
  const farm = await testFarm();
  const dir = mkdtempSync(join(tmpdir(), "ff-repro-opt-"));
  const marker = join(dir, "ran");
  const cmd = `touch ${marker} #`;
  try {
    const t = await upsertTarget(farm.db, { name: "small", engine: "wasm", path: "small", version: "v1" });
    const c = await createCampaign(farm.db, { targetId: t.id, engine: "wasm", config: { engine: "wasm", options: { optimizerCmd: cmd }, jobSeconds: 1 } as never, deadline: new Date(Date.now() + 60_000) });
    const reproducer = { engine: "wasm", seed: 1, options: { strategy: "token", tier: "default", opt: "O2", optimizerCmd: cmd } };
    const { bucketId } = await recordCrash(farm.db.prisma, {
      targetId: t.id, campaignId: c.id, jobId: "j1", ordinal: 0, kind: "oracle", signature: "oracle:result", title: "wrong result", frames: [],
      message: "wrong result", stack: "", artifact: { reproducer, detail: { oracle: "result" } }, triage: {},
    });
    for (const env of [{ ...farm.env, FUZZFARM_ALLOWED_OPTIMIZERS: "none" }, farm.env]) {
      const r = await runCli(["repro", bucketId], env);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /FF_ERR_FORBIDDEN: optimizerCmd "touch .*" is not in the allowed optimizers \(FUZZFARM_ALLOWED_OPTIMIZERS: none listed\)/);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.equal(existsSync(marker), false, "the stored command did not run");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await farm.close();
  }
});
