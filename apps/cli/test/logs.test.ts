// The CLI's log lines follow FUZZFARM_LOG_LEVEL: `fuzzfarm fuzz` prints its
// coordinator's events as `coordinator: ...` lines at info, none at warn,
// while its own output (the campaign line, the --json summary) stays.
// `fuzzfarm worker` logs JSON lines, as the worker app does. Real farm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { CLI, fixture, killAndWait, runCli, testFarm, waitUntil } from "./helpers";

test("fuzz: coordinator lines at the default level, none at FUZZFARM_LOG_LEVEL=warn; the summary either way", async () => {
  const farm = await testFarm();
  try {
    const args = ["fuzz", fixture("quiet.js"), "--time", "2s", "--workers", "1", "--job-seconds", "1"];
    const loud = await runCli(args, farm.env, 120_000);
    assert.equal(loud.code, 0, loud.stderr.slice(-2000));
    assert.match(loud.stderr, /^coordinator: campaign \S+ started: input /m);
    assert.match(loud.stderr, /^campaign \S+: input engine on /m);
    const quiet = await runCli([...args, "--json"], { ...farm.env, FUZZFARM_LOG_LEVEL: "warn" }, 120_000);
    assert.equal(quiet.code, 0, quiet.stderr.slice(-2000));
    assert.doesNotMatch(quiet.stderr, /^coordinator: /m);
    assert.equal(JSON.parse(quiet.stdout).status, "completed");
  } finally {
    await farm.close();
  }
});

test("fuzzfarm worker: one JSON line per event with its workerId", async () => {
  const farm = await testFarm({ FUZZFARM_ENGINES: "input" });
  const p = spawn(process.execPath, ["--import", "tsx", CLI, "worker"], { env: farm.env, stdio: ["ignore", "ignore", "pipe"] });
  let text = "";
  p.stderr!.setEncoding("utf8").on("data", (d: string) => (text += d));
  try {
    await waitUntil(() => / ready: engines input/.test(text), 60_000, `the ready event: ${text}`);
    const ready = JSON.parse(text.split("\n").find((l) => / ready: engines/.test(l))!);
    assert.equal(ready.level, 30);
    assert.equal(ready.name, "worker");
    assert.match(ready.workerId, /:\d+:[0-9a-f]{6}$/);
  } finally {
    await killAndWait(p);
    await farm.close();
  }
});
