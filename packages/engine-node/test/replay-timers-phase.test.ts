// A replay keeps timers that the recording ran in one timers phase together.
// The fixture is a real recording (`--strategy mix --seed 73` of the
// socket-timeout example, horizon with a late loop): the server's reply timer
// was held, and the client's socket timeout ran right after it in the same
// timers phase, before the reply reached the client. Replayed with only the
// order and the recorded gap, the reply's read slipped in between (a poll
// phase), refreshed the socket's idle timer, and the timeout never fired: the
// replay passed 0 of 10 times. With the same-phase mark (`tp`) it fails as
// recorded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURES, EXAMPLES_DIR } from "./helpers";

const BIN = fileURLToPath(new URL("../bin/fuzzfarm-node.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../../../", import.meta.url));

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    c.stderr.on("data", (d) => { stderr += d; });
    c.on("close", (code) => resolve({ code, stderr }));
  });
}

test("replay: a timer recorded in the same timers phase as the one before it runs before any I/O (socket timeout vs reply)", async () => {
  const trace = JSON.parse(readFileSync(join(FIXTURES, "socket-timeout-same-phase.trace.json"), "utf8"));
  trace.root = REPO;
  const samePhase = trace.events.filter((e: { tp?: boolean }) => e.tp);
  assert.equal(samePhase.length, 1, "the recording marks the socket timeout as run in the server timer's phase");
  assert.equal(samePhase[0].api, "SP.setTimeout");
  const file = join(mkdtempSync(join(tmpdir(), "ff-tp-")), "t.json");
  writeFileSync(file, JSON.stringify(trace));
  const results: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await run(["--replay", file, join(EXAMPLES_DIR, "socket-timeout-vs-close.js")]);
    results.push(r.code === 1 && /callback called 2 times/.test(r.stderr) ? "reproduced" : `exit ${r.code}`);
  }
  assert.deepEqual(results, ["reproduced", "reproduced", "reproduced"]);
});
