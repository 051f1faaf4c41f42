// Results are data, never commands (protocol's reported.ts): a result's finding
// names its run (input, seed, schedule, program), never options, commands,
// paths or a bucket; every size is capped; the worker's publishableResult keeps
// each engine's legitimate findings and refuses an oversized result in one line;
// jobReproducer rebuilds a run from the campaign's stored options only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FuzzFarmError, jobReproducer, parseCampaignConfig, parseResult, publishableResult, RESULT_LIMITS, type Finding } from "../src/index";

const base = { jobId: "j", campaignId: "c", workerId: "w", execs: 1, busyMs: 1, startedAt: "a", finishedAt: "b" };
const finding = (reproducer: object) => ({ kind: "crash", crashKind: "uncaught", message: "boom", stack: "", reproducer, detail: {} });
const refused = (r: object, re: RegExp) => assert.throws(() => parseResult(r), (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_BAD_JOB" && re.test(e.message) && !e.message.includes("\n"));

test("a finding naming options, commands or paths is refused: optimizerCmd, optimizer, fault, timeouts, arguments, root, a module file", () => {
  refused({ ...base, engine: "wasm", findings: [finding({ engine: "wasm", seed: 1, options: { optimizerCmd: "touch /tmp/pwned" } })] }, /findings\.0\.reproducer\.options: Unrecognized key: "optimizerCmd"/);
  refused({ ...base, engine: "wasm", findings: [finding({ engine: "wasm", options: { optimizer: "/tmp/evil" } })] }, /optimizer/);
  refused({ ...base, engine: "wasm", findings: [finding({ engine: "wasm", options: { fault: { kind: "narrow" } } })] }, /fault/);
  refused({ ...base, engine: "wasm", findings: [finding({ engine: "wasm", options: { litmus: true }, trace: { file: "/etc/evil.wasm" } })] }, /file/);
  refused({ ...base, engine: "node", findings: [finding({ engine: "node", options: { args: ["--require", "/tmp/x.js"] } })] }, /args/);
  refused({ ...base, engine: "node", findings: [finding({ engine: "node", options: { timeoutMs: 600000 } })] }, /timeoutMs/);
  refused({ ...base, engine: "input", findings: [finding({ engine: "input", input: "AA==", options: { root: "/" } })] }, /root/);
  refused({ ...base, engine: "input", findings: [{ ...finding({ engine: "input" }), command: "sh" }] }, /command/);
});

test("sizes are capped: a 20 MB coverage map, a long message, a large detail", () => {
  const big = { "/t.js": { path: "/t.js", s: { x: "y".repeat(20 * 1024 * 1024) } } };
  refused({ ...base, engine: "input", coverage: big }, /coverage: the coverage map is over/);
  refused({ ...base, engine: "input", findings: [{ ...finding({ engine: "input" }), message: "m".repeat(RESULT_LIMITS.messageChars + 1) }] }, /message/);
  refused({ ...base, engine: "input", findings: [{ ...finding({ engine: "input" }), detail: { d: "d".repeat(RESULT_LIMITS.detailBytes) } }] }, /detail/);
  // the worker refuses to publish it, in one line naming the largest part
  assert.throws(
    () => publishableResult({ execs: 1, busyMs: 1, coverage: big }, { ...base, engine: "input", kind: "fuzz" }),
    (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_ARTIFACT_TOO_LARGE" && /coverage map of job j is 21\.0 MB, over the 8\.4 MB/.test(e.message),
  );
  const corpus = Array.from({ length: 5 }, () => ({ data: "A".repeat(4 * 1024 * 1024 - 10), features: [] }));
  assert.throws(() => publishableResult({ execs: 1, busyMs: 1, corpus }, { ...base, engine: "input", kind: "fuzz" }), /FF_ERR_ARTIFACT_TOO_LARGE|over the 16\.8 MB a result may carry \(largest: corpus/);
});

test("each engine's legitimate findings are published with their run only, and a replay rebuilds the rest from the campaign", () => {
  const engines: Finding[] = [
    { kind: "crash", crashKind: "uncaught", message: "boom", stack: "Error: boom\n    at fuzz (/t.js:1:1)", detail: {}, reproducer: { engine: "input", input: "AAE=", seed: 4, options: { timeoutMs: 2000, maxMemoryMb: 512, root: "/srv" } } },
    {
      kind: "hang", timeoutMs: 100, message: "hang", stack: "", detail: { pendingHandles: [] },
      reproducer: { engine: "node", seed: 7, options: { strategy: "pct", params: { depth: 3 }, timeoutMs: 100, args: ["a"] }, trace: { events: [{ id: "e", seq: 1, held: true, t: 1 }], holdSet: null, root: "/srv" } },
    },
    {
      kind: "oracle", oracle: "result", message: "bad", stack: "", detail: {},
      reproducer: { engine: "wasm", seed: 9, options: { strategy: "race", tier: "liftoff", opt: "O2", runsPerProgram: 20, scheduleSeed: 3, optimizerCmd: "wasm-opt", fault: null }, trace: { file: "/x.wasm", wat: "(module)", program: { a: 1 }, config: { tier: "liftoff", opt: "O2" } } },
    },
  ];
  for (const f of engines) {
    const engine = f.reproducer.engine;
    const r = publishableResult({ execs: 1, busyMs: 1, findings: [f] }, { ...base, engine, kind: "fuzz" });
    const sent = r.findings[0]!.reproducer;
    assert.equal(parseResult(JSON.parse(JSON.stringify(r))).findings.length, 1, `${engine}: the coordinator accepts what the worker sends`);
    assert.ok(!JSON.stringify(sent).match(/optimizerCmd|timeoutMs|maxMemoryMb|"args"|x\.wasm|runsPerProgram/), `${engine}: ${JSON.stringify(sent)}`);
  }
  const wasm = publishableResult({ execs: 1, busyMs: 1, findings: [engines[2]!] }, { ...base, engine: "wasm", kind: "fuzz" }).findings[0]!.reproducer;
  assert.deepEqual(wasm.engine === "wasm" && [wasm.seed, wasm.options.tier, wasm.options.scheduleSeed, wasm.trace?.wat], [9, "liftoff", 3, "(module)"]);
  // the replay's options: the campaign's own, whatever the stored report said
  const config = parseCampaignConfig({ engine: "wasm", options: { runsPerProgram: 7 }, jobSeconds: 1 });
  const job = jobReproducer(engines[2]!.reproducer, config);
  assert.equal(job.engine === "wasm" && job.options.optimizerCmd, null, "the stored optimizerCmd is gone: the campaign has none");
  assert.equal(job.engine === "wasm" && job.options.runsPerProgram, 7);
  assert.equal(job.engine === "wasm" && job.trace?.file, undefined, "a litmus replay runs the campaign's target");
  const node = jobReproducer(engines[1]!.reproducer, parseCampaignConfig({ engine: "node", options: { timeoutMs: 900 }, jobSeconds: 1 }));
  assert.deepEqual(node.engine === "node" && [node.options.strategy, node.options.timeoutMs, node.options.args], ["pct", 900, []]);
  assert.throws(() => jobReproducer(engines[0]!.reproducer, config), /the stored reproducer is the input engine's, the campaign runs wasm/);
});
