// The dfs strategy: every schedule of a litmus module once, at yield-point granularity.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Harness, loadLitmus, runLitmus, runWasmCli } from "../src/index";
import { runSpec, checkStrategy } from "../src/internal/runner/strategies";
import { injectFault } from "../src/internal/text/faults";
import { instrument } from "../src/internal/text/instrument";
import { encodeWat } from "../src/internal/wasm-tools";

const h = new Harness();
after(() => h.close());
const ex = (n: string) => new URL(`../../../examples/wasm/${n}`, import.meta.url).pathname;

test("dfs runs each interleaving of memory accesses exactly once, then stops", async () => {
  // Three threads of two atomic adds: 6!/(2!2!2!) = 90 interleavings, each with its own outcome.
  const chain = await runLitmus(h, await loadLitmus(ex("rmw-chain.wat")), { runs: 1000, strategy: "dfs" });
  assert.equal(chain.exhausted, true);
  assert.equal(chain.runs, 90);
  assert.deepEqual(Object.keys(chain.outcomes).sort(), chain.allowed);
  assert.ok(Object.values(chain.outcomes).every((n) => n === 1), "no schedule ran twice");
  // SB: two threads of two accesses, C(4,2) = 6 interleavings; IRIW: 6!/(2!2!) = 180.
  const sb = await runLitmus(h, await loadLitmus(ex("sb.wat")), { runs: 100, strategy: "dfs" });
  assert.deepEqual([sb.runs, sb.exhausted, sb.forbiddenSeen], [6, true, []]);
  assert.deepEqual(Object.keys(sb.outcomes).sort(), sb.allowed);
  const iriw = await runLitmus(h, await loadLitmus(ex("iriw.wat")), { runs: 1000, strategy: "dfs", seed: 5 });
  assert.deepEqual([iriw.runs, iriw.exhausted, Object.keys(iriw.outcomes).length], [180, true, 15]);
});

test("dfs within a smaller budget is not exhausted; the seed only changes the order", async () => {
  const m = await loadLitmus(ex("rmw-chain.wat"));
  const a = await runLitmus(h, m, { runs: 30, strategy: "dfs", seed: 1 });
  assert.deepEqual([a.runs, a.exhausted], [30, false]);
  assert.equal(Object.keys(a.outcomes).length, 30);
});

test("dfs sees a broken module's forbidden outcome, and its schedule replays", async () => {
  const m = await loadLitmus(ex("mp.wat"));
  const r = await runLitmus(h, m, { runs: 100, strategy: "dfs", fault: "reorder" });
  assert.equal(r.exhausted, true);
  assert.ok(r.forbiddenSeen!.length > 0, JSON.stringify(r.outcomes));
  const oc = r.forbiddenSeen![0]!;
  const spec = r.firstSpec[oc]!;
  // The same faulty, instrumented module, run twice under the reported schedule.
  const bytes = await encodeWat(instrument(injectFault(m.linear, "reorder").text).text);
  const res = await h.execute("default", bytes, m.meta, [spec, spec], { timeoutMs: 3000, wantLogs: false });
  assert.ok(!("crash" in res) && !("hang" in res));
  assert.deepEqual(res.results.map((x) => x.outcome), [oc, oc]);
});

test("dfs is litmus-only: generated programs and farm generator jobs get one clear error", async () => {
  assert.doesNotThrow(() => checkStrategy("dfs", true));
  assert.throws(() => checkStrategy("dfs"), /FF_ERR_CONFIG|litmus/);
  assert.throws(() => runSpec("dfs", 1, 0, 2), /litmus/);
  let err = "";
  const code = await runWasmCli(["run", "--strategy", "dfs", "--count", "1"], { stdout: () => {}, stderr: (s) => { err += s; } });
  assert.equal(code, 2);
  assert.match(err, /dfs.*litmus/);
  let out = "";
  const ok = await runWasmCli(["litmus", ex("sb.wat"), "--strategy", "dfs", "--json"], { stdout: (s) => { out += s; }, stderr: () => {} });
  assert.equal(ok, 0);
  const j = JSON.parse(out);
  assert.deepEqual([j.runs, j.exhausted], [6, true]);
});
