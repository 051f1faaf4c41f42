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

test("a dropped notify applies, is a lost wake-up (hang finding) the unbroken program does not have, and the pool recovers", async () => {
  // A dropped notify only hangs a run where the waiter sleeps before the (dropped) notify; seen to miss once in
  // CI on one program, so the fault gets up to three programs and 20 schedules each.
  let hang;
  let hangSeed = 0;
  for (const seed of [4, 6, 8]) {
    const r = await h.check(generate(seed, cfg), { runs: 20, strategy: "token", tiers: false, optLevels: [], fault: { kind: "drop-notify", where: "all" } });
    assert.equal(r.faultApplies, true, `seed ${seed}: the drop-notify fault changed nothing in the module`);
    hang = r.findings.find((f) => f.oracle === "hang");
    hangSeed = seed;
    if (hang) break;
  }
  assert.ok(hang, "no hang finding");
  assert.match(hang!.hangKind!, /lost-wakeup|deadlock/);
  // the same program and schedules without the fault: no finding, so the hang was the fault's
  const clean = await h.check(generate(hangSeed, cfg), { runs: 20, strategy: "token", tiers: false, optLevels: [] });
  assert.deepEqual(clean.findings.map((f) => f.message), [], `seed ${hangSeed} without the fault`);
  // Token schedules are deterministic; seed 5 under barrier/delay can hit the real Liftoff wait32 bug
  // (examples/wasm/liftoff-wait32-clobber.mjs), which is a finding, not a flake to tolerate here.
  const ok = await h.check(generate(5, cfg), { runs: 4, strategy: "token", tiers: false, optLevels: [] });
  assert.deepEqual(ok.findings, []);
});

test("faults are caught: narrow and reorder (schedule), optimizer- and tier-only faults", async () => {
  const narrow = await h.check(generate(1001, cfg), { runs: 4, tiers: false, optLevels: [], fault: { kind: "narrow", where: "all" } });
  assert.ok(narrow.findings.some((f) => f.oracle === "schedule"));
  const reorder = await h.check(generate(1001, cfg), { runs: 20, strategy: "race", tiers: false, optLevels: [], fault: { kind: "reorder", where: "all" } });
  assert.ok(reorder.findings.some((f) => f.oracle === "schedule"));
  const opt = await h.check(generate(1001, cfg), { runs: 2, tiers: false, optLevels: ["O2"], fault: { kind: "narrow", where: "optimized" } });
  assert.deepEqual(opt.findings.map((f) => f.oracle), ["optimizer"]);
  const tier = await h.check(generate(1001, cfg), { runs: 2, tiers: true, optLevels: [], fault: { kind: "narrow", where: "liftoff" } });
  assert.deepEqual(tier.findings.map((f) => f.oracle), ["tier"]);
});

test("a non-atomic RMW (rmw-plain) is caught by both the schedule and the history oracle, on each of three programs with racing RMWs", async () => {
  const seeds: number[] = [];
  for (let seed = 1001; seeds.length < 3; seed++) if (hasRacingRmw(generate(seed, cfg))) seeds.push(seed);
  for (const seed of seeds) {
    const plain = await h.check(generate(seed, cfg), { runs: 40, strategy: "race", tiers: false, optLevels: [], fault: { kind: "rmw-plain", where: "all" }, stopAtFirst: false });
    assert.equal(plain.faultApplies, true, `seed ${seed}: the fault changed nothing`);
    const oracles = new Set(plain.findings.map((f) => f.oracle));
    assert.ok(oracles.has("history") && oracles.has("schedule"), `seed ${seed}: oracles that fired: ${[...oracles].join(", ") || "none"}`);
  }
});

// A floor on detection rates, on a small sample of the programs bench/wasm-faults.ts measures (seeds 2000+,
// `mix`, 20 schedules; there: narrow 95%, rmw-plain and reorder 100%, drop-notify 100% of 40 programs).
// Floors sit well below those rates, so a working oracle does not flake, and far above what an oracle that
// stopped seeing the fault would score (0).
test("detection-rate floor: each fault is caught on most of a small sample of programs it applies to", async () => {
  const rows = [
    { kind: "narrow", oracle: "schedule", strategy: "mix", programs: 8, floor: 6 },
    { kind: "reorder", oracle: "schedule", strategy: "mix", programs: 8, floor: 6 },
    { kind: "rmw-plain", oracle: "history", strategy: "mix", programs: 12, floor: 3 },
    { kind: "drop-notify", oracle: "hang", strategy: "token", programs: 4, floor: 3 },
  ] as const;
  const table: string[] = [];
  for (const row of rows) {
    let applies = 0, hit = 0;
    for (let seed = 2000; seed < 2000 + row.programs; seed++) {
      const p = generate(seed, cfg);
      if (row.kind === "rmw-plain" && !hasRacingRmw(p)) continue;
      const r = await h.check(p, { runs: 20, strategy: row.strategy, tiers: false, optLevels: [], fault: { kind: row.kind, where: "all" }, stopAtFirst: false });
      if (!r.faultApplies) continue;
      applies++;
      if (r.findings.some((f) => f.oracle === row.oracle)) hit++;
    }
    table.push(`${row.kind}/${row.oracle}: ${hit} of ${applies}`);
    assert.ok(applies >= row.floor && hit >= row.floor, `${row.kind}: ${row.oracle} caught ${hit} of ${applies} programs it applies to (floor ${row.floor})`);
  }
  console.log(`# ${table.join("; ")}`);
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
