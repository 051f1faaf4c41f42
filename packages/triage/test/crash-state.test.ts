// crashState for findings without a real trace fixture: hangs from detail
// listings, blocked threads, oracle shapes, exits, messages only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Finding } from "@fuzzfarm/protocol";
import { crashState } from "../src/index";

const root = "/srv/app";
const repro = { engine: "node" as const, options: {} };
const crash = (crashKind: string, stack: string, message = "", detail: Record<string, unknown> = {}) =>
  Finding.parse({ kind: "crash", crashKind, message, stack, reproducer: repro, detail });

test("hang: pending handles from detail, sorted and deduplicated, lines kept only for display", () => {
  const f = Finding.parse({
    kind: "hang", timeoutMs: 5000, message: "no progress for 5000 ms", reproducer: repro,
    detail: { handles: ["TCPWRAP", "Timeout(/srv/app/lib/fs-cache.js:12)", "Timeout(/srv/app/lib/fs-cache.js:12)", "Immediate(/srv/app/a.js:3)"] },
  });
  const s = crashState(f, { rootDir: root });
  assert.equal(s.signature, "hang:pending handles | Immediate@a.js | Timeout@lib/fs-cache.js | TCPWRAP@");
  assert.deepEqual(s.frames.map((x) => x.display), ["Immediate(a.js:3)", "Timeout(lib/fs-cache.js:12)", "TCPWRAP"]);
  assert.equal(s.title, "hang on Immediate(a.js), Timeout(lib/fs-cache.js), TCPWRAP");
  // the same handles at other lines and in another order: same signature
  const g = Finding.parse({ ...f, detail: { pendingHandles: [{ type: "TCPWRAP" }, { type: "Immediate", location: "/srv/app/a.js:9" }, "Timeout(/srv/app/lib/fs-cache.js:40)"] } });
  assert.equal(crashState(g, { rootDir: root }).signature, s.signature);
});

test("hang: blocked threads of a wasm run; a busy loop's stack wins over handles", () => {
  const t = Finding.parse({
    kind: "hang", timeoutMs: 2000, message: "deadlock", reproducer: { engine: "wasm", options: {} },
    detail: { blockedThreads: [{ id: 2, state: "wait", at: "$lock (wasm-function[3])" }, "worker#1 wait on 0x40"] },
  });
  const s = crashState(t, { rootDir: root });
  assert.equal(s.type, "blocked threads");
  assert.match(s.signature, /^hang:blocked threads \| /);
  assert.equal(s.frames.length, 2);
  assert.ok(s.frames.some((f) => f.fn === "worker#<pid> wait on <hex>"), JSON.stringify(s.frames));
  const busy = Finding.parse({ kind: "hang", timeoutMs: 2000, message: "", reproducer: repro, stack: "Error: interrupted\n    at spin (/srv/app/spin.js:3:9)\n    at main (/srv/app/spin.js:9:1)", detail: { handles: ["TCPWRAP"] } });
  const b = crashState(busy, { rootDir: root });
  assert.equal(b.signature, "hang:busy | spin@spin.js | main@spin.js");
  assert.equal(b.title, "hang (busy) in spin (spin.js)");
  const bare = crashState(Finding.parse({ kind: "hang", timeoutMs: 2000, message: "no progress for 2000 ms", reproducer: repro }), { rootDir: root });
  assert.equal(bare.signature, "hang | msg:no progress for <n> ms");
});

test("oracle: signature is oracle kind + program shape", () => {
  const o = Finding.parse({
    kind: "oracle", oracle: "nondeterminism", message: "checksum 812 != 1020 on run 7", reproducer: { engine: "wasm", options: {} },
    detail: { shape: "spawn(2){ atomic.add x3;   lock{store} }" },
  });
  const s = crashState(o, { rootDir: root });
  assert.equal(s.signature, "oracle:nondeterminism | shape:spawn(2){ atomic.add x3; lock{store} }");
  assert.equal(s.title, "oracle nondeterminism violated by spawn(2){ atomic.add x3; lock{store} }");
  assert.equal(s.normalizedMessage, "checksum <n> != <n> on run <n>");
  const other = crashState(Finding.parse({ ...o, detail: { shape: "spawn(3){ wait/notify }" } }), { rootDir: root });
  assert.notEqual(other.signature, s.signature);
  const noShape = crashState(Finding.parse({ ...o, detail: {} }), { rootDir: root });
  assert.equal(noShape.signature, "oracle:nondeterminism | msg:checksum <n> != <n> on run <n>");
});

test("exit: the exit code is the type; frames come from the captured stack", () => {
  const s = crashState(crash("exit", "Error: process.exit(3)\n    at fail (/srv/app/cli.js:8:11)\n    at node:internal/process/per_thread:1:1", "process.exit(3) called", { exitCode: 3 }), { rootDir: root });
  assert.equal(s.signature, "exit:exit 3 | fail@cli.js");
  assert.equal(s.title, "exit 3 in fail (cli.js)");
  assert.equal(crashState(crash("exit", "", "exited with code 2"), { rootDir: root }).type, "exit 2");
});

test("signal names from numbers, exit codes 128+n and shell wording", () => {
  assert.equal(crashState(crash("signal", "", "", { signal: 11 }), { rootDir: root }).type, "SIGSEGV");
  assert.equal(crashState(crash("signal", "", "", { exitCode: 134 }), { rootDir: root }).type, "SIGABRT");
  assert.equal(crashState(crash("signal", "", "Segmentation fault (core dumped)"), { rootDir: root }).type, "SIGSEGV");
});

test("message-only crashes: the finding message gives the type; a thrown string uses Node's throw site", () => {
  const s = crashState(crash("uncaught", "", "TypeError [ERR_INVALID_ARG_TYPE]: The \"path\" argument must be of type string. Received 42"), { rootDir: root });
  assert.equal(s.type, "TypeError [ERR_INVALID_ARG_TYPE]");
  assert.equal(s.signature, 'uncaught:TypeError [ERR_INVALID_ARG_TYPE] | msg:TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string. Received <n>');
  const thrown = "/srv/app/lib/boot.js:4\n  throw 'config missing';\n  ^\nconfig missing\n(Use `node --trace-uncaught ...` to show where the exception was thrown)\n";
  const t = crashState(crash("uncaught", thrown), { rootDir: root });
  assert.equal(t.signature, "uncaught | <unknown>@lib/boot.js");
  assert.equal(t.normalizedMessage, "config missing");
  assert.equal(t.title, "uncaught in <unknown> (lib/boot.js)");
});

test("kinds never share a signature, and line numbers never enter it", () => {
  const stack = (line: number) => `Error: boom\n    at f (/srv/app/a.js:${line}:1)\n    at g (/srv/app/b.js:2:2)`;
  const u = crashState(crash("uncaught", stack(1)), { rootDir: root });
  const r = crashState(crash("rejection", stack(1)), { rootDir: root });
  assert.notEqual(u.signature, r.signature);
  assert.equal(crashState(crash("uncaught", stack(99)), { rootDir: root }).signature, u.signature);
  assert.equal(u.frames[0]!.line, 1);
});
