// `fuzzfarm up` under a process manager: SIGTERM (docker stop, systemd) or
// SIGINT (Ctrl-C) to the command stops the coordinator, the dashboard and the
// local workers it started, so nothing of it is left running. Started through
// the real launcher (apps/cli/bin/fuzzfarm.mjs), the way `npm run demo` does.
// Killed outright (SIGKILL, an OOM kill, a crash), no handler runs: the local
// workers see their lifeline (the stdin pipe the command holds) close and stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, testFarm, waitUntil } from "./helpers";

const BIN = join(REPO, "apps", "cli", "bin", "fuzzfarm.mjs");

/** Every live descendant of `pid` (from /proc), so a child that outlived its parent is still found. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p) (out.push(c), walk(c));
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} to fuzzfarm up stops coordinator, dashboard and local workers: nothing of it left 10 s later`, { timeout: 180_000 }, async () => {
    const farm = await testFarm();
    try {
      const p = spawn(process.execPath, [BIN, "up", "--workers", "2", "--port", "0"], { cwd: REPO, env: farm.env, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      p.stderr!.on("data", (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => p.on("exit", (code) => resolve(code)));
      await waitUntil(() => /dashboard: http/.test(err), 120_000, `the dashboard line: ${err.slice(-500)}`);
      const url = /dashboard: (http\S+)/.exec(err)![1]!;
      assert.equal((await fetch(`${url}/metrics`)).status, 200);
      // Both workers are up (past their start-up) before the signal.
      await waitUntil(() => (err.match(/ ready: engines/g) ?? []).length >= 2, 120_000, `two ready workers: ${err.slice(-500)}`);
      const tree = [p.pid!, ...descendants(p.pid!)];
      assert.ok(tree.length >= 3, `up and its two workers: ${tree.join(" ")}`);
      p.kill(signal);
      const t0 = Date.now();
      const code = await Promise.race([exited, new Promise<"late">((r) => setTimeout(() => r("late"), 10_000))]);
      await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - t0))));
      const left = tree.filter(alive);
      assert.deepEqual(left, [], `still running 10 s after ${signal}: ${left.join(" ")}\n${err.slice(-1500)}`);
      assert.equal(code, 0, err.slice(-1500));
      assert.match(err, /shutting down/);
      await assert.rejects(fetch(`${url}/metrics`), "the dashboard no longer answers");
    } finally {
      await farm.close();
    }
  });
}

test("fuzzfarm up killed outright (SIGKILL: no handler runs): its local workers notice and stop within 15 s", { timeout: 180_000 }, async () => {
  const farm = await testFarm();
  try {
    const p = spawn(process.execPath, [BIN, "up", "--workers", "2", "--port", "0"], { cwd: REPO, env: farm.env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    p.stderr!.on("data", (d) => (err += d));
    await waitUntil(() => (err.match(/ ready: engines/g) ?? []).length >= 2, 120_000, `two ready workers: ${err.slice(-500)}`);
    const workers = descendants(p.pid!).filter((pid) => {
      try { return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("worker"); } catch { return false; }
    });
    assert.ok(workers.length >= 2, `two worker processes: ${workers.join(" ")}`);
    p.kill("SIGKILL");
    await waitUntil(() => workers.every((w) => !alive(w)), 15_000, `workers still running 15 s after their parent was killed: ${workers.filter(alive).join(" ")}`);
  } finally {
    await farm.close();
  }
});
