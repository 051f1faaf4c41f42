// The published package, as a user gets it: `npm run pack`'s tarball
// installed with `npm i -D` into a fresh project in a temporary directory
// outside the repository (no tsx, no workspace, no other FuzzFarm package),
// then `npx fuzzfarm node`, `npx fuzzfarm wasm litmus` and `npx fuzzfarm fuzz`
// run there against the real Redis and PostgreSQL. Optional dependencies
// (other JavaScript runtimes for the wasm engine, the embedded PostgreSQL)
// are left out of this install to keep the test within its time budget;
// everything exercised here needs none of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { REPO } from "./helpers";

const PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres";

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("close", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

async function dropDatabase(name: string) {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

/** A litmus module as a user would have it: examples/wasm/sb.wat encoded to a binary .wasm with wabt. */
async function litmusWasm(): Promise<Buffer> {
  const { default: wabtInit } = await import("wabt");
  const wabt = await wabtInit();
  const mod = wabt.parseWat("sb.wat", readFileSync(join(REPO, "examples", "wasm", "sb.wat"), "utf8"), { threads: true, bulk_memory: true });
  const bin = Buffer.from(mod.toBinary({}).buffer);
  mod.destroy();
  return bin;
}

test("npm run pack: one tarball that installs into a fresh project; node, wasm litmus and fuzz run there without the repository", { timeout: 240_000 }, async () => {
  const env = { FUZZFARM_TEST: undefined, NODE_OPTIONS: undefined } as unknown as NodeJS.ProcessEnv;
  const out = mkdtempSync(join(tmpdir(), "ff-pack-out-"));
  const proj = mkdtempSync(join(tmpdir(), "ff-user-project-"));
  const db = `fuzzfarm_pack_${process.pid}`;
  try {
    const pack = await run(process.execPath, [join(REPO, "scripts", "pack.mjs"), "--out", out], REPO, env);
    assert.equal(pack.code, 0, pack.stderr);
    const tarball = pack.stdout.trim().split("\n").pop()!;
    assert.match(tarball, /fuzzfarm-[\d.]+\.tgz$/);
    assert.ok(existsSync(tarball), tarball);

    writeFileSync(join(proj, "package.json"), JSON.stringify({ name: "user-project", version: "1.0.0", private: true }));
    const inst = await run("npm", ["i", "-D", "--no-audit", "--no-fund", "--prefer-offline", "--omit=optional", tarball], proj, env, 180_000);
    assert.equal(inst.code, 0, inst.stderr);
    assert.ok(!existsSync(join(proj, "node_modules", "@fuzzfarm")), "no workspace package is installed");

    // A drop-in node: same output and exit code as plain node.
    writeFileSync(join(proj, "test.js"), `setTimeout(() => console.log("timer"), 5);\nrequire("fs").readFile(__filename, () => console.log("read"));\nprocess.on("exit", (c) => console.log("exit", c));\n`);
    const plain = spawnSync(process.execPath, ["test.js"], { cwd: proj, encoding: "utf8" });
    const fz = await run("npx", ["fuzzfarm", "node", "--seed", "7", "test.js"], proj, env);
    assert.equal(fz.code, 0, fz.stderr);
    assert.deepEqual(fz.stdout.split("\n").sort(), plain.stdout.split("\n").sort());
    // A TypeScript target runs through FuzzFarm's own tsx (the project has none).
    writeFileSync(join(proj, "t.ts"), `const n: number = 41;\nconsole.log("ts", n + 1);\n`);
    const ts = await run("npx", ["fuzzfarm", "node", "t.ts"], proj, env);
    assert.equal(ts.code, 0, ts.stderr);
    assert.equal(ts.stdout.trim(), "ts 42");

    // The wasm harness on a user's binary module.
    writeFileSync(join(proj, "m.wasm"), await litmusWasm());
    const lit = await run("npx", ["fuzzfarm", "wasm", "litmus", "m.wasm", "--runs", "10"], proj, env);
    assert.equal(lit.code, 0, lit.stderr + lit.stdout);
    assert.match(lit.stdout, /allowed under SC: 3 \(3 seen\)/);

    // A campaign against the running services: the database is created and migrated by the package itself.
    writeFileSync(
      join(proj, "fuzz.js"),
      `exports.fuzz = function fuzz(data) {\n  if (data.length >= 3 && data[0] === 0x46 && data[1] === 0x46 && data[2] === 0x21) throw new Error("FF! reached");\n};\n`,
    );
    const fuzzEnv = {
      ...env,
      FUZZFARM_DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${db}`,
      FUZZFARM_QUEUE_PREFIX: `ffpack${process.pid}`,
      // As in the farm tests: the engines' start-up probes (tested there) take 15-25 s on this busy machine,
      // most of a 30 s campaign.
      FUZZFARM_SKIP_SELFTEST: "1",
    };
    const fuzz = await run("npx", ["fuzzfarm", "fuzz", "fuzz.js", "--time", "30s", "--stop-on-crash", "--workers", "1", "--maintenance-wait", "20s", "--json"], proj, fuzzEnv, 150_000);
    const summary = JSON.parse(fuzz.stdout || "{}");
    assert.equal(fuzz.code, 1, `exit 1 = new buckets; ${fuzz.stdout.slice(0, 1500)} ${fuzz.stderr.slice(-2000)}`);
    assert.equal(summary.status, "completed");
    assert.ok(summary.executions > 0);
    assert.equal(summary.buckets.length, 1, JSON.stringify(summary.buckets));
    // Frames are shown relative to the user's project, not to FuzzFarm's files.
    assert.equal(summary.buckets[0].signature, "uncaught:Error | fuzz@fuzz.js");
  } finally {
    await dropDatabase(db).catch(() => {});
    rmSync(proj, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});
