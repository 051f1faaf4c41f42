// `fuzzfarm repro <bucket>` runs an optimizer only when this machine's
// operator lists it: a wasm bucket whose campaign and stored report name an
// optimizer command is refused in one line with FUZZFARM_ALLOWED_OPTIMIZERS=none
// (and by default), and the command never runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

test("repro of a reproducer file whose run names an optimizer command: refused the same way, with no database", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-repro-file-opt-"));
  const marker = join(dir, "ran");
  const cmd = `touch ${marker} #`;
  try {
    writeFileSync(join(dir, "small.wat"), "(module)\n");
    const reproducer = { engine: "wasm", seed: 1, options: { strategy: "token", tier: "default", opt: "O2", optimizerCmd: cmd } };
    const file = join(dir, "s_0123456789abcdef.json");
    writeFileSync(file, JSON.stringify({
      format: "fuzzfarm-reproducer", version: 1, id: "s_0123456789abcdef", target: "small.wat", engine: "wasm", kind: "oracle", title: "wrong result",
      signature: "oracle:result", report: { message: "wrong result", stack: "", artifact: { reproducer, detail: { oracle: "result" } } },
      command: "npx fuzzfarm repro s_0123456789abcdef.json", versions: { fuzzfarm: "0.1.0", node: process.version, commit: "0" },
    }));
    for (const allowed of [{ FUZZFARM_ALLOWED_OPTIMIZERS: "none" }, {}]) {
      const env: NodeJS.ProcessEnv = { ...process.env, ...allowed };
      if (!("FUZZFARM_ALLOWED_OPTIMIZERS" in allowed)) delete env.FUZZFARM_ALLOWED_OPTIMIZERS;
      const r = await runCli(["repro", file, "--root", dir], env);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /FF_ERR_FORBIDDEN: optimizerCmd "touch .*" is not in the allowed optimizers/);
      assert.equal(existsSync(marker), false, "the file's command did not run");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
