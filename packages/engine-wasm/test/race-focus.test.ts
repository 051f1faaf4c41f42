// Where a non-atomic read-modify-write can show, and the focused race runs that
// show it: hand-built program trees, so each test says exactly which race it is about.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Harness, parseGenConfig, type Program } from "../src/index";
import { hasRacingRmw, racingCells } from "../src/internal/gen/hb";
import { metaFor } from "../src/internal/harness";
import { runSpec } from "../src/internal/runner/strategies";
import type { Stmt } from "../src/internal/gen/ir";
import { cellAddr, lockAddr } from "../src/internal/gen/layout";

const h = new Harness();
after(() => h.close());

let site = 1;
const xchg = (cell: number, v: bigint): Stmt => ({ k: "rmw", site: site++, cell, op: "xchg", ty: "i32", w: 32, v, use: "sum", mask: 0n });
const add = (cell: number, v: bigint): Stmt => ({ k: "rmw", site: site++, cell, op: "add", ty: "i32", w: 32, v, use: "drop", mask: 0n });
const locked = (cell: number, v: number): Stmt => ({ k: "locked", site: site++, lock: 0, cell, v });

/** th0 runs `before`, spawns th1, runs `mine`, joins; th1 runs `child`. Cells: 0 xchg, 1 add, 2 locked. */
function program(before: Stmt[], mine: Stmt[], child: Stmt[], extraChild: Stmt[] | null = null): Program {
  const th0: Stmt[] = [...before, { k: "spawn", t: 1 }, ...(extraChild ? [{ k: "spawn", t: 2 } as Stmt] : []), ...mine, { k: "join", t: 1 }, ...(extraChild ? [{ k: "join", t: 2 } as Stmt] : [])];
  const threads = [
    { id: 0, parent: -1, depth: 0, body: th0 },
    { id: 1, parent: 0, depth: 1, body: child },
    ...(extraChild ? [{ id: 2, parent: 0, depth: 1, body: extraChild }] : []),
  ];
  return {
    seed: 7, config: parseGenConfig({}), threads, locks: 1, flags: 0, helpers: [], sharedGlobals: 0,
    cells: [{ cls: "xchg", w: 32 }, { cls: "add", w: 32 }, { cls: "locked", w: 32 }],
  };
}

test("a lost update applies only where two RMWs race while the xchg cell still holds 0", () => {
  // th0's first xchg happens before both racing ones: every xchg after it reads the value it writes.
  const settled = program([xchg(0, 5n)], [xchg(0, 5n)], [xchg(0, 5n)]);
  assert.equal(hasRacingRmw(settled), false);
  assert.deepEqual(racingCells(settled).map((c) => c.cell), [0], "the accesses still race; only a lost update is invisible");
  assert.equal(hasRacingRmw(program([], [xchg(0, 5n)], [xchg(0, 5n)])), true);
  // add cells lose an update whenever two adds race, whatever came before.
  assert.equal(hasRacingRmw(program([add(1, 3n)], [add(1, 3n)], [add(1, 4n)])), true);
  // Ordered by spawn: no race at all.
  assert.equal(hasRacingRmw(program([xchg(0, 5n)], [], [xchg(0, 5n)])), false);
});

test("race runs focus on the racing cells, a lock word together with its cell", () => {
  const p = program([add(1, 1n)], [add(1, 2n), xchg(0, 9n)], [xchg(0, 9n)], [locked(2, 4)]);
  // Cell 0 races; cell 1 is th0's alone; cell 2 is locked but only th2 uses it (no race).
  assert.deepEqual(metaFor(p).shared, [[cellAddr(0)]]);
  const q = program([], [locked(2, 1)], [locked(2, 2)]);
  assert.deepEqual(metaFor(q).shared, [[lockAddr(0), cellAddr(2)]]);
  // Successive race runs take the focus groups in turn; mix runs race in two of every five.
  assert.deepEqual([0, 1, 2].map((i) => runSpec("race", 1, i, 2).focus), [0, 1, 2]);
  assert.deepEqual([0, 3, 5, 8].map((i) => runSpec("mix", 1, i, 2).focus), [0, 1, 2, 3]);
});

test("focused race runs find a lost update that needs a thread parked inside the split RMW", async () => {
  // th1 exchanges at once; th0 gets there after twelve other accesses (six split adds).
  // Only load(th0) load(th1) store store, in either order, makes both xchgs return 0.
  const busy = [...Array(6)].map((_, i) => add(1, BigInt(i + 1)));
  const p = program([], [...busy, xchg(0, 9n)], [xchg(0, 9n)]);
  assert.equal(hasRacingRmw(p), true);
  const focused = await h.check(p, { runs: 4, strategy: "race", tiers: false, optLevels: [], fault: { kind: "rmw-plain", where: "all" }, stopAtFirst: false });
  assert.ok(focused.findings.some((f) => f.oracle === "schedule"), JSON.stringify(focused.outcomes));
  // The unbroken program stays correct under the same schedules.
  const ok = await h.check(p, { runs: 4, strategy: "race", tiers: false, optLevels: [] });
  assert.deepEqual(ok.findings, []);
});

test("a lock whose compare-exchange is split: the two critical sections overlap under focused runs", async () => {
  const p = program([], [locked(2, 10)], [locked(2, 20)]);
  const r = await h.check(p, { runs: 6, strategy: "race", tiers: false, optLevels: [], fault: { kind: "rmw-plain", where: "all" }, stopAtFirst: false });
  assert.ok(r.findings.some((f) => f.oracle === "schedule"), JSON.stringify(r.outcomes));
});
