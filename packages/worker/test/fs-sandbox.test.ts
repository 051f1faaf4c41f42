// The "fs" sandbox from the inside: real targets of each engine (node
// spawned and warm, input executors, wasm runners through a command engine,
// Deno and Bun) try to read the job key and the worker's data directory,
// read another job's directory under /tmp, write outside their directory,
// list the worker's processes, look into /run and reach Redis; each writes
// what it saw into its job directory (the one place it can write). The same
// node target under no sandbox sees and does all of it, so the checks can
// fail. One target replays what an attacker did to the earlier sandbox
// (unmounting covers, remounting / read-write, PostgreSQL's Unix socket, the
// syscalls the seccomp filter refuses), also from a worker that is not root.
import { spawn, spawnSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineResult, parseJob, type EngineRunContext, type JobFor } from "@fuzzfarm/protocol";
import { inputEngine } from "@fuzzfarm/engine-input";
import { nodeEngine } from "@fuzzfarm/engine-node";
import { createWasmEngine, RUNNER_PATH } from "@fuzzfarm/engine-wasm";
import { jobSandbox, probeFsSandbox, resolveSandbox, type ResolvedSandbox } from "../src/index";

const linux = process.platform === "linux";
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const WORKER_INDEX = fileURLToPath(new URL("../src/index.ts", import.meta.url));
const skip = !linux && "the fs sandbox is Linux only";
const dir = mkdtempSync(join(tmpdir(), "ff-fs-sandbox-"));
// The worker's data directory with its job key, outside the private tmp directories (/var/tmp stays visible).
const dataDir = mkdtempSync("/var/tmp/ff-fs-data-");
const keyFile = join(dataDir, "job-key");
writeFileSync(keyFile, "the-job-key-0123456789abcdef0123456789", { mode: 0o600 });
// Another job's directory, as the worker leaves it under tmpdir while that job runs.
const otherJob = mkdtempSync(join(tmpdir(), "ffjob-other-"));
writeFileSync(join(otherJob, "input.bin"), "another job's input");
const REDIS_PORT = Number(new URL(process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379").port || 6379);

interface Seen {
  who: string;
  pid: number;
  procs: string[];
  keyFile: string;
  dataDir: string[] | string;
  otherJob: string;
  writeRepo: string;
  writeVarTmp: string;
  writeData: string;
  writeCwd: string;
  writeTmp: string;
  uid: number;
  run: string | string[];
  redis: string;
}

/** Probe code, plain JS that runs in any of the runtimes: `report(who, outFile)` writes what it saw, then calls back. */
const PROBE = `
const fs = require("node:fs"), net = require("node:net"), path = require("node:path");
function code(f) { try { const v = f(); return v === undefined ? "ok" : v; } catch (e) { return e.code || String(e.message); } }
function report(who, out, done) {
  const seen = {
    who, pid: process.pid, procs: fs.readdirSync("/proc").filter((n) => /^[0-9]+$/.test(n)),
    keyFile: code(() => "read:" + fs.readFileSync(${JSON.stringify(keyFile)}, "utf8")),
    dataDir: code(() => fs.readdirSync(${JSON.stringify(dataDir)})),
    otherJob: code(() => "read:" + fs.readFileSync(${JSON.stringify(join(otherJob, "input.bin"))}, "utf8")),
    writeRepo: code(() => fs.writeFileSync(${JSON.stringify(join(process.cwd(), "ff-fs-escape"))}, "x")),
    writeVarTmp: code(() => fs.writeFileSync("/var/tmp/ff-fs-escape", "x")),
    writeData: code(() => fs.writeFileSync(${JSON.stringify(join(dataDir, "planted"))}, "x")),
    writeCwd: code(() => fs.writeFileSync(path.join(process.cwd(), "mine.txt"), "x")),
    writeTmp: code(() => fs.writeFileSync("/tmp/ff-fs-private-" + who, "x")),
    uid: process.getuid(), run: code(() => fs.readdirSync("/run")),
  };
  const s = net.connect(${REDIS_PORT}, "127.0.0.1");
  const end = (r) => { seen.redis = r; s.destroy(); fs.writeFileSync(out, JSON.stringify(seen)); done(); };
  s.on("connect", () => end("connected")).on("error", (e) => end(e.code));
}
`;

function sandboxFor(resolved: ResolvedSandbox, name: string, readable: string[] = []) {
  const workDir = mkdtempSync(join(tmpdir(), `ffjob-${name}-`));
  return { workDir, sandbox: jobSandbox(resolved, workDir, { readable: [dir, ...readable], hide: [dataDir, keyFile] }) };
}

const ctxOf = (workDir: string, sandbox: EngineRunContext["sandbox"]): EngineRunContext => ({ signal: new AbortController().signal, workDir, sandbox });

function readSeen(workDir: string): Seen[] {
  const cwd = join(workDir, "target-cwd");
  return existsSync(cwd) ? readdirSync(cwd).filter((f) => f.startsWith("seen-")).map((f) => JSON.parse(readFileSync(join(cwd, f), "utf8")) as Seen) : [];
}

function assertConfined(s: Seen) {
  const who = s.who;
  assert.equal(s.keyFile, "ENOENT", `${who}: job key file: ${s.keyFile}`);
  assert.equal(s.dataDir, "ENOENT", `${who}: the data directory is not in the view`);
  assert.equal(s.otherJob, "ENOENT", `${who}: another job's directory`);
  assert.equal(s.writeRepo, "EROFS", `${who}: write into the repository`);
  assert.equal(s.writeVarTmp, "ENOENT", `${who}: write into /var/tmp (not in the view)`);
  assert.equal(s.writeData, "ENOENT", `${who}: write into the data directory`);
  assert.ok(s.uid !== 0, `${who}: uid ${s.uid}`);
  assert.equal(s.run, "ENOENT", `${who}: /run`);
  assert.equal(s.writeCwd, "ok", `${who}: write into its cwd`);
  assert.equal(s.writeTmp, "ok", `${who}: write into its private /tmp`);
  assert.ok(s.pid <= 3, `${who}: pid ${s.pid} in its own PID namespace`);
  assert.ok(s.procs.length <= 4 && s.procs.includes(String(s.pid)) && !s.procs.includes(String(process.pid)), `${who}: /proc lists ${s.procs.join(",")}`);
  assert.equal(s.redis, "ECONNREFUSED", `${who}: Redis on 127.0.0.1`);
}

function assertNothingLeaked() {
  for (const f of ["/var/tmp/ff-fs-escape", join(process.cwd(), "ff-fs-escape"), join(dataDir, "planted")]) assert.equal(existsSync(f), false, `${f} was written`);
  assert.deepEqual(readdirSync(tmpdir()).filter((f) => f.startsWith("ff-fs-private-")), [], "a target's private /tmp file reached the host's");
}

test("fs sandbox: the start-up probe passes here, auto picks it", { skip }, async () => {
  assert.equal(await probeFsSandbox(), null);
  const auto = await resolveSandbox("auto");
  assert.equal(auto.name, "fs");
  assert.equal((await resolveSandbox("fs")).name, "fs");
  // without bubblewrap: "fs" is one line saying what to install, "auto" falls back and says why
  await assert.rejects(resolveSandbox("fs", { bwrap: null }), (e: { code?: string; message: string }) => e.code === "FF_ERR_CONFIG" && e.message === 'sandbox "fs" is not available here: bwrap is not installed (install bubblewrap: apt-get install bubblewrap)');
  const fallback = await resolveSandbox("auto", { bwrap: null });
  assert.equal(fallback.name, "net");
  assert.match(fallback.why, /^no fs sandbox: bwrap is not installed \(install bubblewrap/);
  // the engine sees how the target ended: its exit code, or the signal that killed it
  const { workDir, sandbox } = sandboxFor(auto, "status");
  const end = (code: string) => new Promise<[number | null, string | null]>((resolve) => {
    const [cmd, ...args] = [...sandbox.prefix, process.execPath, "-e", code];
    spawn(cmd!, args, { cwd: sandbox.cwd, stdio: "ignore" }).on("exit", (c, sig) => resolve([c, sig]));
  });
  assert.deepEqual(await end("process.exit(130)"), [130, null]);
  assert.deepEqual(await end("process.kill(process.pid, 'SIGSEGV')"), [null, "SIGSEGV"]);
  assert.deepEqual(await end("process.exit(0)"), [0, null]);
  rmSync(workDir, { recursive: true, force: true });
});

test("node engine (a spawned run and warm hosts): confined; the same program under no sandbox is not", { skip }, async () => {
  const fs_ = await resolveSandbox("fs");
  const target = join(dir, "node-probe.cjs");
  writeFileSync(target, `${PROBE}\nreport("node-" + process.argv[2] + "-" + process.pid + "-" + Date.now(), "seen-" + process.argv[2] + "-" + Math.random().toString(36).slice(2) + ".json", () => {});\n`);
  // the baseline run is a spawned process, the fuzzing runs go to warm hosts: both kinds report
  const { workDir, sandbox } = sandboxFor(fs_, "node");
  const job = parseJob({ jobId: "n", campaignId: "c", engine: "node", target: { name: "t", path: target }, options: { args: ["fs"] }, budget: { runs: 4, seconds: 30 } }) as JobFor<"node">;
  const r = EngineResult.parse(await nodeEngine.run(job, ctxOf(workDir, sandbox)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  const seen = readSeen(workDir);
  assert.ok(seen.length >= 4, `${seen.length} reports`);
  for (const s of seen) assertConfined(s);
  rmSync(workDir, { recursive: true, force: true });
  assertNothingLeaked();

  // the same target, no sandbox: it reads the key, lists the worker, writes outside, reaches Redis
  const bare = sandboxFor(await resolveSandbox("none"), "node-none");
  const once = parseJob({ jobId: "nn", campaignId: "c", engine: "node", target: { name: "t", path: target }, options: { args: ["none"] }, budget: { runs: 1, seconds: 30 } }) as JobFor<"node">;
  EngineResult.parse(await nodeEngine.run(once, ctxOf(bare.workDir, bare.sandbox)));
  const [s] = readSeen(bare.workDir);
  assert.ok(s, "a report without sandbox");
  assert.match(s.keyFile, /^read:the-job-key/);
  assert.equal(s.otherJob, "read:another job's input");
  assert.equal(s.writeVarTmp, "ok");
  assert.ok(s.procs.includes(String(process.pid)), "without the sandbox the worker is listed");
  assert.equal(s.redis, "connected");
  for (const f of readdirSync(tmpdir()).filter((f) => f.startsWith("ff-fs-private-"))) rmSync(join(tmpdir(), f), { force: true });
  for (const f of ["/var/tmp/ff-fs-escape", join(process.cwd(), "ff-fs-escape"), join(dataDir, "planted")]) rmSync(f, { force: true });
  rmSync(bare.workDir, { recursive: true, force: true });
});

// What an attacker did to the earlier sandbox, where the target was root in its user namespace with every
// capability: unmount what covered the data directory and /tmp, remount / read-write, unmount /proc, talk to
// PostgreSQL's Unix socket, plus the syscalls the seccomp filter refuses. Each line says how it ended.
const ARCH_NR: Record<string, Record<string, number>> = {
  x64: { ptrace: 101, keyctl: 250, add_key: 248, bpf: 321, perf_event_open: 298, unshare: 272, setns: 308, clone: 56, mount: 165 },
  arm64: { ptrace: 117, keyctl: 219, add_key: 217, bpf: 280, perf_event_open: 241, unshare: 97, setns: 268, clone: 220, mount: 40 },
};
const NR = ARCH_NR[process.arch] ?? {};
const ATTACK = `
const fs = require("node:fs"), net = require("node:net"), cp = require("node:child_process");
const code = (f) => { try { const v = f(); return v === undefined ? "ok" : v; } catch (e) { return e.code || String(e.message); } };
const run = (cmd, args) => { const r = cp.spawnSync(cmd, args, { encoding: "utf8" }); return r.error ? r.error.code : r.status === 0 ? "ok" : "failed"; };
// a raw syscall through perl: "ok" or the errno's name
// (perl passes a string argument as a pointer, and only from a variable: literals are read-only)
const sys = (nr, args) => {
  if (nr === undefined) return "EPERM";
  const r = cp.spawnSync("perl", ["-MErrno", "-e", "my @a = (" + args + "); my $r = syscall(" + nr + ", @a); " + (nr === ${NR.clone ?? -1} ? "exit 0 if $r == 0; " : "") + "print $r == -1 ? (grep { $!{$_} } keys %!)[0] : 'ok'"], { encoding: "utf8" });
  return r.stdout.trim() || "perl: " + (r.error ? r.error.code : r.stderr.trim().split("\\n")[0]);
};
const status = fs.readFileSync("/proc/self/status", "utf8");
const field = (n) => (new RegExp("^" + n + ":\\\\s*(\\\\S+)", "m").exec(status) || [])[1];
const seen = { uid: process.getuid(), capEff: field("CapEff"), noNewPrivs: field("NoNewPrivs"), seccomp: field("Seccomp") };
seen.umountData = run("umount", [${JSON.stringify(dataDir)}]);
seen.keyAfterUmount = code(() => "read:" + fs.readFileSync(${JSON.stringify(keyFile)}, "utf8"));
seen.umountTmp = run("umount", ["-l", "/tmp"]);
seen.otherJobAfterUmount = code(() => "read:" + fs.readFileSync(${JSON.stringify(join(otherJob, "input.bin"))}, "utf8"));
seen.remountRoot = run("mount", ["-o", "remount,bind,rw", "/"]);
seen.writeRootAfterRemount = code(() => fs.writeFileSync("/ff-attack-escape", "x"));
seen.umountProc = run("umount", ["/proc"]);
seen.procsAfterUmount = fs.readdirSync("/proc").filter((n) => /^[0-9]+$/.test(n)).length;
seen.run = code(() => fs.readdirSync("/run"));
seen.varRun = code(() => fs.readdirSync("/var/run"));
seen.ptrace = sys(${NR.ptrace}, "16, 1, 0, 0");
seen.unshareUser = sys(${NR.unshare}, "0x10000000");
seen.unshareMount = sys(${NR.unshare}, "0x20000");
seen.cloneUser = sys(${NR.clone}, "0x10000000 | 17, 0, 0, 0, 0");
seen.setns = sys(${NR.setns}, "-1, 0");
seen.keyctl = sys(${NR.keyctl}, "0, -3, 0");
seen.addKey = sys(${NR.add_key}, "'user', 'ffkey', 'v', 1, -2");
seen.bpf = sys(${NR.bpf}, "0, 0, 0");
seen.perf = sys(${NR.perf_event_open}, "0, 0, -1, -1, 0");
seen.mountSyscall = sys(${NR.mount}, "'none', '/tmp', 'tmpfs', 0, 0");
seen.unshareCommand = run("unshare", ["-Ur", "true"]);
const tries = [["pgSocket", { path: "/var/run/postgresql/.s.PGSQL.5432" }], ["pgSocketRun", { path: "/run/postgresql/.s.PGSQL.5432" }], ["redis", { host: "127.0.0.1", port: ${REDIS_PORT} }], ["postgres", { host: "127.0.0.1", port: 5432 }]];
const next = () => {
  const t = tries.shift();
  if (!t) return fs.writeFileSync("seen-attack.json", JSON.stringify(seen));
  const s = net.connect(t[1]);
  const end = (r) => { seen[t[0]] = r; s.destroy(); next(); };
  s.on("connect", () => end("connected")).on("error", (e) => end(e.code));
};
next();
`;

/** The attacks of ATTACK that were not refused, as "name=value" (empty: all refused). */
function notRefused(seen: Record<string, unknown>, escaped: boolean): string[] {
  const refused: [string, unknown, (v: unknown) => boolean][] = [
    ["uid", seen.uid, (v) => v !== 0],
    ["capEff", seen.capEff, (v) => v === "0000000000000000"],
    ["noNewPrivs", seen.noNewPrivs, (v) => v === "1"],
    ["seccomp", seen.seccomp, (v) => v === "2"],
    ["keyAfterUmount", seen.keyAfterUmount, (v) => v === "ENOENT"],
    ["otherJobAfterUmount", seen.otherJobAfterUmount, (v) => v === "ENOENT"],
    ["writeRootAfterRemount", seen.writeRootAfterRemount, (v) => v === "EROFS" || v === "EACCES"],
    ["host file written", escaped, (v) => v === false],
    ["procsAfterUmount", seen.procsAfterUmount, (v) => typeof v === "number" && v <= 6],
    ["/run", seen.run, (v) => v === "ENOENT"],
    ["/var/run", seen.varRun, (v) => v === "ENOENT"],
    ["pgSocket", seen.pgSocket, (v) => v === "ENOENT"],
    ["pgSocketRun", seen.pgSocketRun, (v) => v === "ENOENT"],
    ["redis", seen.redis, (v) => v === "ECONNREFUSED"],
    ["postgres", seen.postgres, (v) => v === "ECONNREFUSED"],
    ...(["ptrace", "unshareUser", "unshareMount", "cloneUser", "setns", "keyctl", "addKey", "bpf", "perf", "mountSyscall"] as const).map((k) => [k, seen[k], (v: unknown) => v === "EPERM"] as [string, unknown, (v: unknown) => boolean]),
    ...(["umountData", "umountTmp", "remountRoot", "umountProc", "unshareCommand"] as const).map((k) => [k, seen[k], (v: unknown) => v !== "ok"] as [string, unknown, (v: unknown) => boolean]),
  ];
  return refused.filter(([, v, ok]) => !ok(v)).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
}

test("attacks on the sandbox from a target: each is refused (unmount covers and /tmp, remount / rw, unmount /proc, host Unix sockets, ptrace, namespaces, keys, bpf, perf)", { skip }, async () => {
  const fs_ = await resolveSandbox("fs");
  const target = join(dir, "attack.cjs");
  writeFileSync(target, ATTACK);
  const { workDir, sandbox } = sandboxFor(fs_, "attack");
  const job = parseJob({ jobId: "a", campaignId: "c", engine: "node", target: { name: "t", path: target }, options: { warm: false }, budget: { runs: 1, seconds: 60 } }) as JobFor<"node">;
  const r = EngineResult.parse(await nodeEngine.run(job, ctxOf(workDir, sandbox)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  const file = join(workDir, "target-cwd", "seen-attack.json");
  assert.ok(existsSync(file), `the attacking target reported (${JSON.stringify(r.findings.map((f) => f.message))})`);
  const seen = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  rmSync(workDir, { recursive: true, force: true });
  const escaped = existsSync("/ff-attack-escape");
  rmSync("/ff-attack-escape", { force: true });
  console.log(`attack results: ${JSON.stringify(seen)}`);
  const failed = notRefused(seen, escaped);
  assert.deepEqual(failed, [], `attacks that were not refused: ${failed.join(", ")}`);
});

test("a worker that is not root gets the same sandbox (unprivileged user namespaces): the attacks are refused there too", { skip: (!linux || process.getuid?.() !== 0) && "needs Linux and root to switch to nobody" }, async () => {
  // a directory the worker's user can read, the attacking target in it
  const pub = mkdtempSync(join(tmpdir(), "ff-fs-nobody-"));
  chmodSync(pub, 0o755);
  const target = join(pub, "attack.cjs");
  writeFileSync(target, ATTACK, { mode: 0o644 });
  const script = `
    const { resolveSandbox, jobSandbox } = await import(${JSON.stringify(WORKER_INDEX)});
    const { nodeEngine } = await import("@fuzzfarm/engine-node");
    const { parseJob } = await import("@fuzzfarm/protocol");
    const fs = await import("node:fs"), os = await import("node:os"), path = await import("node:path");
    const level = await resolveSandbox("fs");
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "ffjob-nobody-"));
    const sandbox = jobSandbox(level, workDir, { readable: [${JSON.stringify(target)}], hide: [${JSON.stringify(dataDir)}] });
    const job = parseJob({ jobId: "a", campaignId: "c", engine: "node", target: { name: "t", path: ${JSON.stringify(target)} }, options: { warm: false }, budget: { runs: 1, seconds: 60 } });
    const r = await nodeEngine.run(job, { signal: new AbortController().signal, workDir, sandbox });
    const seen = JSON.parse(fs.readFileSync(path.join(workDir, "target-cwd", "seen-attack.json"), "utf8"));
    fs.rmSync(workDir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ uid: process.getuid(), level: level.name, error: r.error ?? null, seen }));`;
  const asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "env", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", process.execPath, "--import", "tsx", "--input-type=module", "-e", script];
  const r = spawnSync("setpriv", asNobody, { cwd: REPO, encoding: "utf8", timeout: 90_000 });
  rmSync(pub, { recursive: true, force: true });
  assert.equal(r.status, 0, `the worker as nobody: ${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout) as { uid: number; level: string; error: unknown; seen: Record<string, unknown> };
  const escaped = existsSync("/ff-attack-escape");
  rmSync("/ff-attack-escape", { force: true });
  assert.equal(out.uid, 65534, "the worker ran as nobody");
  assert.equal(out.level, "fs");
  assert.equal(out.error, null);
  assert.deepEqual(notRefused(out.seen, escaped), [], JSON.stringify(out.seen));
});

test("input engine: executors confined; a crash is still found", { skip }, async () => {
  const fs_ = await resolveSandbox("fs");
  const target = join(dir, "input-probe.cjs");
  writeFileSync(target, `${PROBE}\nreport("input-" + process.pid, "seen-input-" + process.pid + ".json", () => {});\nmodule.exports.fuzz = (d) => { if (d.length > 3 && d[0] === 0x41) throw new Error("boom in the fs sandbox"); };\n`);
  const { workDir, sandbox } = sandboxFor(fs_, "input");
  const job = parseJob({ engine: "input", jobId: "i", campaignId: "c", target: { name: "t", path: target }, budget: { runs: 5000, seconds: 8 }, options: {}, seeds: [{ id: "s", data: Buffer.from("AAAA").toString("base64") }] }) as JobFor<"input">;
  const r = EngineResult.parse(await inputEngine.run(job, ctxOf(workDir, sandbox)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.findings.some((f) => /boom in the fs sandbox/.test(f.message)), JSON.stringify(r.findings.map((f) => f.message)));
  const seen = readSeen(workDir);
  assert.ok(seen.length >= 1, "an executor reported");
  for (const s of seen) assertConfined(s);
  rmSync(workDir, { recursive: true, force: true });
  assertNothingLeaked();
});

test("wasm engine: runner processes confined (a command engine that probes first, Deno, Bun); generator jobs run", { skip }, async () => {
  const fs_ = await resolveSandbox("fs");
  // a command engine: probes, then becomes the usual runner (same process, so the runner protocol is unchanged)
  const relay = join(dir, "probe-runner.cjs");
  writeFileSync(relay, `${PROBE}\nreport("wasm-" + process.pid, "seen-wasm-" + process.pid + ".json", () => { process.argv.splice(1, 1); import(process.argv[1]); });\n`);
  const engine = createWasmEngine({ commands: [{ name: "probe", command: [process.execPath, relay, RUNNER_PATH] }] });
  for (const engines of [["probe"], ["deno"], ["bun"]]) {
    const { workDir, sandbox } = sandboxFor(fs_, `wasm-${engines[0]}`);
    const job = parseJob({ jobId: `w-${engines[0]}`, campaignId: "c", engine: "wasm", target: { name: "t", path: "small" }, budget: { runs: 8, seconds: 60 }, options: { runsPerProgram: 2, strategy: "token", engines } }) as JobFor<"wasm">;
    const r = EngineResult.parse(await engine.run(job, ctxOf(workDir, sandbox)));
    assert.equal(r.error, undefined, `${engines[0]}: ${JSON.stringify(r.error)}`);
    assert.deepEqual(r.findings.map((f) => f.message), [], `${engines[0]}: the engine agrees with the baseline under the sandbox`);
    assert.ok(r.strategyYield[`engine:${engines[0]}`]!.execs >= 2, `${engines[0]}: ${JSON.stringify(r.strategyYield)}`);
    if (engines[0] === "probe") {
      const seen = readSeen(workDir);
      assert.ok(seen.length >= 1, "the probing runner reported");
      for (const s of seen) assertConfined(s);
    }
    rmSync(workDir, { recursive: true, force: true });
  }
  assertNothingLeaked();
});

test.after(() => {
  for (const d of [dir, dataDir, otherJob]) rmSync(d, { recursive: true, force: true });
  mkdirSync(tmpdir(), { recursive: true });
});
