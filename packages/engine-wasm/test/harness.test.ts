// Runner and oracles on real worker threads in supervised child processes.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { generate, Harness, parseGenConfig } from "../src/index";
import { metaFor } from "../src/internal/harness";
import { runSpec } from "../src/internal/runner/strategies";
import { emitWat } from "../src/internal/gen/emit";
import { encodeWat } from "../src/internal/wasm-tools";
import { checkHistory, siteTable } from "../src/internal/oracles/history";
import { evaluate } from "../src/internal/gen/evaluate";
import { hasRacingRmw } from "../src/internal/gen/hb";

const h = new Harness();
after(() => h.close());
const cfg = parseGenConfig({});

test("correct programs pass every oracle under token, race, pct and delay schedules", async () => {
  for (const strategy of ["token", "race", "pct", "delay"]) {
    for (const seed of [1, 2, 3]) {
      const r = await h.check(generate(seed, cfg), { runs: 6, strategy, tiers: strategy === "token", optLevels: strategy === "token" ? ["O3"] : [] });
      assert.deepEqual(r.findings.map((f) => f.message), [], `${strategy} seed ${seed}`);
      assert.deepEqual(Object.keys(r.outcomes), [r.expected]);
      assert.ok(r.features.some((f) => f.startsWith("rf:")));
    }
  }
});

test("token schedules replay exactly: same seed, same decisions", async () => {
  const p = generate(11, cfg);
  const prep = await h.prepare(await encodeWat(emitWat(p)), { opt: null, optimizer: { path: null, cmd: null }, fault: null, instrument: true });
  const spec = runSpec("token", 99, 0, p.threads.length);
  const a: any = await h.execute("default", prep.bytes, metaFor(p), [spec, spec, spec], { timeoutMs: 3000, wantLogs: false });
  const d = a.results.map((r: any) => r.decisions.join(","));
  assert.ok(d[0].length > 0);
  assert.equal(d[1], d[0]);
  assert.equal(d[2], d[0]);
  const other: any = await h.execute("default", prep.bytes, metaFor(p), [runSpec("token", 100, 0, p.threads.length)], { timeoutMs: 3000, wantLogs: false });
  assert.notEqual(other.results[0].decisions.join(","), d[0]);
});

test("a dropped notify is a lost wake-up (hang finding) and the pool recovers", async () => {
  // A dropped notify only hangs a run where the waiter sleeps before the (dropped) notify; seen to miss once in
  // CI on one program, so the fault gets up to three programs and 20 schedules each.
  let hang;
  for (const seed of [4, 6, 8]) {
    const r = await h.check(generate(seed, cfg), { runs: 20, strategy: "token", tiers: false, optLevels: [], fault: { kind: "drop-notify", where: "all" } });
    hang = r.findings.find((f) => f.oracle === "hang");
    if (hang) break;
  }
  assert.ok(hang, "no hang finding");
  assert.match(hang!.hangKind!, /lost-wakeup|deadlock/);
  // Token schedules are deterministic; seed 5 under barrier/delay can hit the real Liftoff wait32 bug
  // (examples/wasm/liftoff-wait32-clobber.mjs), which is a finding, not a flake to tolerate here.
  const ok = await h.check(generate(5, cfg), { runs: 4, strategy: "token", tiers: false, optLevels: [] });
  assert.deepEqual(ok.findings, []);
});

test("faults are caught: narrow and reorder (schedule), rmw-plain (schedule + history), optimizer- and tier-only faults", async () => {
  const narrow = await h.check(generate(1001, cfg), { runs: 4, tiers: false, optLevels: [], fault: { kind: "narrow", where: "all" } });
  assert.ok(narrow.findings.some((f) => f.oracle === "schedule"));
  const reorder = await h.check(generate(1001, cfg), { runs: 20, strategy: "race", tiers: false, optLevels: [], fault: { kind: "reorder", where: "all" } });
  assert.ok(reorder.findings.some((f) => f.oracle === "schedule"));
  let seed = 1001;
  while (!hasRacingRmw(generate(seed, cfg))) seed++;
  const plain = await h.check(generate(seed, cfg), { runs: 40, strategy: "race", tiers: false, optLevels: [], fault: { kind: "rmw-plain", where: "all" }, stopAtFirst: false });
  assert.ok(plain.findings.some((f) => f.oracle === "history"), `seed ${seed}`);
  const opt = await h.check(generate(1001, cfg), { runs: 2, tiers: false, optLevels: ["O2"], fault: { kind: "narrow", where: "optimized" } });
  assert.deepEqual(opt.findings.map((f) => f.oracle), ["optimizer"]);
  const tier = await h.check(generate(1001, cfg), { runs: 2, tiers: true, optLevels: [], fault: { kind: "narrow", where: "liftoff" } });
  assert.deepEqual(tier.findings.map((f) => f.oracle), ["tier"]);
});

test("an engine process killed by a signal is a crash finding; the next run restarts it", async () => {
  const p = generate(6, cfg);
  const sup = h.supervisor("default");
  const prep = await h.prepare(await encodeWat(emitWat(p)), { opt: null, optimizer: { path: null, cmd: null }, fault: null, instrument: true });
  await sup.load(prep.bytes, metaFor(p));
  const specs = [...Array(200)].map((_, i) => runSpec("delay", 1, i, p.threads.length));
  const pending = sup.run(specs, { timeoutMs: 3000 });
  setTimeout(() => sup.kill("SIGSEGV"), 50);
  const r: any = await pending;
  assert.ok(r.crash, "expected a crash");
  assert.equal(r.crash.signal, "SIGSEGV");
  const again: any = await sup.run(specs.slice(0, 2), { timeoutMs: 3000 });
  assert.equal(again.results.length, 2);
});

test("history oracle: accepts a real order, rejects lost updates", () => {
  const p = generate(2, cfg);
  const ev = evaluate(p);
  const sites = siteTable(p);
  assert.equal(checkHistory(p, sites, ev.logs, ev.cells).ok, true);
  // Duplicate a thread's log of an add-class RMW chain: two ops claiming to read the same value.
  const ran = new Set(ev.logs.flat().map(([s]) => s));
  const rmw = [...sites.values()].find((s) => s.kind === "rmw" && (s.op === "add" || s.op === "sub") && s.v !== 0n && ran.has(s.site));
  assert.ok(rmw);
  const logs = ev.logs.map((l) => [...l]);
  const t = logs.findIndex((l) => l.some(([s]) => s === rmw!.site));
  const entry = logs[t]!.find(([s]) => s === rmw!.site)!;
  logs.push([[entry[0], entry[1]]]);
  const fake = { ...p, threads: [...p.threads, { id: p.threads.length, parent: 0, depth: 1, body: [] }] };
  assert.equal(checkHistory(fake, sites, logs, ev.cells.map(() => null)).ok, false);
});
