// The loggers apps make: a process logger writes one JSON line per event on
// stderr when it is not a terminal (checked in a real child process), at its
// level; pretty output when asked; a line logger hands on messages only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isLogLevel, lineLogger, parseLogLine } from "../src/index";

const INDEX = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Runs `body` in a child with `processLogger` in scope; stderr is a pipe there. */
function child(body: string): { stderr: string; stdout: string; status: number | null } {
  const src = `import { processLogger } from ${JSON.stringify(INDEX)};\n${body}`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", src], { encoding: "utf8" });
  return { stderr: r.stderr, stdout: r.stdout, status: r.status };
}

test("processLogger: JSON lines on stderr (not a terminal) with level, time, pid, name, fields and msg; stdout untouched", () => {
  const r = child(`const l = await processLogger({ name: "probe" }); l.info({ jobId: "j1", workerId: "w1" }, "job j1 done"); l.warn({ err: new Error("boom") }, "it failed"); l.debug("hidden");`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "");
  const lines = r.stderr.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 2, r.stderr);
  assert.deepEqual({ ...lines[0], time: 0, hostname: "" }, { level: 30, time: 0, pid: lines[0].pid, hostname: "", name: "probe", jobId: "j1", workerId: "w1", msg: "job j1 done" });
  assert.equal(typeof lines[0].time, "number");
  assert.equal(lines[1].level, 40);
  assert.equal(lines[1].err.message, "boom");
  assert.match(lines[1].err.stack, /Error: boom/);
});

test("processLogger: level warn writes warnings and errors only; pretty output is not JSON", () => {
  const quiet = child(`const l = await processLogger({ name: "probe", level: "warn" }); l.info("an info line"); l.warn("a warning"); l.error("an error");`);
  assert.deepEqual(quiet.stderr.trim().split("\n").map((l) => [JSON.parse(l).level, JSON.parse(l).msg]), [[40, "a warning"], [50, "an error"]]);
  const pretty = child(`const l = await processLogger({ name: "probe", pretty: true }); l.info({ jobId: "j1" }, "job j1 done");`);
  assert.equal(parseLogLine(pretty.stderr.split("\n")[0]!), null, pretty.stderr);
  assert.match(pretty.stderr, /INFO.*\(probe\/\d+\): job j1 done/);
  assert.match(pretty.stderr, /jobId: "j1"/);
});

test("lineLogger hands on each message at its level; parseLogLine reads events and refuses other lines", () => {
  const lines: string[] = [];
  const l = lineLogger((s) => lines.push(s), "warn");
  l.info({ jobId: "x" }, "info");
  l.warn({ jobId: "x" }, "warned");
  l.error("failed");
  assert.deepEqual(lines, ["warned", "failed"]);
  assert.deepEqual(parseLogLine('{"level":40,"msg":"m","jobId":"j"}'), { level: 40, msg: "m", jobId: "j" });
  for (const bad of ["plain line", "{not json", '{"msg":"no level"}', "[12:00:00] INFO: pretty"]) assert.equal(parseLogLine(bad), null, bad);
  assert.ok(isLogLevel("debug") && isLogLevel("silent") && !isLogLevel("loud"));
});
