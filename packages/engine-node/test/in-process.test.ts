// Which `fuzzfarm node` runs go without a parent process (in-process.ts); the
// runs themselves are checked end to end on the built command in
// apps/cli/test/node-in-process.test.ts (only a CommonJS entry may start them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCliArgs } from "../src/internal/cli-args";
import { runsInProcess } from "../src/internal/in-process";

const clean = { env: {}, execArgv: [] };

test("a plain run, any strategy, seed or --stall runs in process; options that need a parent do not", () => {
  for (const args of [["x.js"], ["--strategy", "none", "x.cjs", "--timeout", "5"], ["--seed", "3", "--stall", "0", "x.mjs"], ["--param", "ioProb=1", "x.js"]]) {
    assert.ok(runsInProcess(parseCliArgs(args), clean), args.join(" "));
  }
  for (const args of [["--timeout", "100", "x.js"], ["--trace-out", "t.json", "x.js"], ["--report", "r.json", "x.js"], ["--replay", "t.json", "x.js"],
    ["--minimize", "t.json", "x.js"], ["--runs", "2", "x.js"], ["x.ts"], ["x.mts"], ["--help"], []]) {
    assert.ok(!runsInProcess(parseCliArgs(args), clean), args.join(" "));
  }
  // node flags or NODE_OPTIONS of this process would reach the program; a spawned run drops them
  assert.ok(!runsInProcess(parseCliArgs(["x.js"]), { env: { NODE_OPTIONS: "--max-old-space-size=100" }, execArgv: [] }));
  assert.ok(!runsInProcess(parseCliArgs(["x.js"]), { env: {}, execArgv: ["--cpu-prof"] }));
});
