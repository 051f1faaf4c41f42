// The hunt's packages: where races live (pools and clients of loopback
// servers, queues and schedulers, caches with expiry, HTTP with keep-alive
// and timeouts, streams and WebSockets, lockfiles, shutdown, worker pools).
// Each one pinned: an npm version whose tarball ships its tests, or, when the
// tarball ships none, the git commit of its repository (the version its
// package.json names at that commit is given). Downloads: npm's monthly
// count on the day the list was made (/usr/share/package-lists/npm.tsv here).
// devDependencies the tests need are named; their ranges are the package's own.

import type { Runner } from "../real-suites/lib";

export type Source =
  | { npm: string }
  /** `repo` is owner/name on GitHub; `dir` the package inside a monorepo. */
  | { git: string; commit: string; dir?: string };

export interface HuntPackage {
  pkg: string;
  /** The version tested (npm's, or the package.json's at the commit). */
  version: string;
  source: Source;
  /** npm downloads a month when chosen. */
  monthly: number;
  /** Why races may live here. */
  why: string;
  /** "exit": a file is one test, passed when it exits 0 (no TAP). */
  runner: Runner | "exit";
  files: RegExp;
  /** Folders (or files) under the package searched for `files` (default test/). */
  roots?: string[];
  exclude?: { re: RegExp; why: string }[];
  /** devDependencies the tests require, by name (range from the package's own package.json). */
  dev?: string[];
  /** Packages the tests require that its devDependencies do not name, exact versions. */
  extra?: Record<string, string>;
  /** Arguments before the file (mocha flags, e.g. --timeout). */
  runnerArgs?: string[];
  /** Environment of each run: the loopback servers it talks to. */
  env?: Record<string, string>;
}

const M = 1_000_000;

export const PACKAGES: HuntPackage[] = [
  // --- pools, database and queue clients (loopback servers) ---
  { pkg: "mysql", version: "2.18.1", source: { git: "mysqljs/mysql", commit: "dc9c152a87ec51a1f647447268917243d2eab1fd" }, monthly: 4.8 * M,
    why: "connection pool and protocol queue; unit tests talk to a FakeServer on loopback, integration tests to MariaDB",
    runner: "exit", files: /^test\/(unit|integration)\/.*\/test-[\w.-]+\.js$/, dev: ["after", "seedrandom", "utest", "urun"],
    exclude: [{ re: /test-(ssl|.*-ssl|connection-ssl|auth-switch-native)/, why: "TLS fixtures (not intercepted yet)" }],
    env: { MYSQL_HOST: "127.0.0.1", MYSQL_PORT: "3306", MYSQL_USER: "root", MYSQL_PASSWORD: "", MYSQL_DATABASE: "test" } },
  { pkg: "pg-pool", version: "3.14.0", source: { git: "brianc/node-postgres", commit: "c9e57617bc92c2ded23a75345f50eadc527bd131", dir: "packages/pg-pool" }, monthly: 72.2 * M,
    why: "the PostgreSQL pool: checkout, idle and connection timeouts, ending while clients are out",
    runner: "mocha", files: /^test\/[\w-]+\.js$/, exclude: [{ re: /setup\.js$/, why: "mocha setup file, not a test" }],
    dev: ["bluebird", "co", "expect.js", "lodash", "mocha"], extra: { pg: "8.16.3" }, runnerArgs: ["--timeout", "20000"],
    env: { PGHOST: "127.0.0.1", PGUSER: "postgres", PGDATABASE: "postgres" } },
  { pkg: "amqplib", version: "2.0.1", source: { git: "amqp-node/amqplib", commit: "f7503e571a80dacfc863c2690ab797d31667b868" }, monthly: 8.8 * M,
    why: "AMQP client: channel open/close, confirms, connection close while replies are pending (RabbitMQ on loopback)",
    runner: "node:test", files: /^test\/[\w-]+\.test\.js$/, dev: ["claire"], env: { URL: "amqp://guest:guest@127.0.0.1:5672" } },
  { pkg: "bottleneck", version: "2.19.5", source: { npm: "2.19.5" }, monthly: 35.3 * M,
    why: "rate limiter and scheduler: reservoir refresh timers, job expiration, stop() while jobs run",
    runner: "mocha", files: /^test\/\w+\.js$/, dev: ["mocha"], runnerArgs: ["--timeout", "20000"],
    exclude: [{ re: /(cluster|ioredis|node_redis|context)\.js$/, why: "Redis clustering tests (need DATASTORE env and old redis clients); context.js is a helper" }] },
  { pkg: "better-queue", version: "3.8.12", source: { npm: "3.8.12" }, monthly: 0.55 * M,
    why: "job queue with batching, retries, timeouts and a store", runner: "mocha", files: /^test\/\w+\.js$/, dev: ["mocha"], runnerArgs: ["--timeout", "20000"] },
  { pkg: "fastq", version: "1.20.3", source: { npm: "1.20.3" }, monthly: 338.7 * M,
    why: "in-memory work queue with concurrency, pause/resume, kill and drain", runner: "tape", files: /^test\/(test|promise)\.js$/, dev: ["tape", "neo-async", "async"] },
  { pkg: "mqemitter", version: "7.1.0", source: { npm: "7.1.0" }, monthly: 0.82 * M,
    why: "message queue emitter with concurrency and close", runner: "node:test", files: /^test\/test\.js$/ },
  { pkg: "workerpool", version: "10.0.3", source: { git: "josdejong/workerpool", commit: "601124cf86602c1ac88c273a8f99e9c40bea0f16" }, monthly: 51.1 * M,
    why: "worker pool (threads and processes): task timeouts, cancel, terminate while tasks run", runner: "mocha", files: /^test\/[\w]+\.test\.js$/,
    dev: ["mocha", "find-process", "fs-extra", "date-format"], runnerArgs: ["--timeout", "30000"] },
  { pkg: "worker-farm", version: "1.7.0", source: { npm: "1.7.0" }, monthly: 15.6 * M,
    why: "child-process farm: call timeouts, child death and end()", runner: "tape", files: /^tests\/index\.js$/, roots: ["tests"], dev: ["tape"] },
  { pkg: "thread-stream", version: "4.2.1", source: { npm: "4.2.1" }, monthly: 80.1 * M,
    why: "a stream to a worker thread over SharedArrayBuffer: flush, end and exit orderings", runner: "node:test", files: /^test\/[\w.-]+\.test\.m?js$/, extra: { desm: "1.3.1" },
    exclude: [{ re: /transpiled|bundlers|ts\.test|esm\.test/, why: "needs the TypeScript transpile step (bench/real-suites says why)" }, { re: /watch-mode/, why: "runs node --watch" }] },
  // --- caches and memoizers with expiry ---
  { pkg: "lru-memoizer", version: "3.0.0", source: { npm: "3.0.0" }, monthly: 29.5 * M,
    why: "memoizer with maxAge and queueing of concurrent loads for one key", runner: "mocha", files: /^test\/[\w.-]+\.test\.js$/, dev: ["mocha", "chai", "sinon"] },
  { pkg: "async-cache", version: "1.1.0", source: { git: "isaacs/async-cache", commit: "a744157a9fefafcba80cab70485c4a4fcbe2115a" }, monthly: 1.4 * M,
    why: "cache with async load, coalescing of concurrent gets, maxAge", runner: "tap", files: /^test\/[\w-]+\.js$/, dev: ["tap"] },
  { pkg: "node-cache", version: "5.1.2", source: { git: "node-cache/node-cache", commit: "b5ee4352541fd284104b3bb224170db8de935d44" }, monthly: 17.8 * M,
    why: "TTL cache with a periodic check timer", runner: "mocha", files: /^_src\/test\/mocha_test\.coffee$/, roots: ["_src/test"], dev: ["mocha", "should", "coffee-script"],
    runnerArgs: ["--require", "coffee-script/register", "--timeout", "30000"] },
  { pkg: "memory-cache", version: "0.2.0", source: { git: "ptarjan/node-cache", commit: "27a1eeec18660b45d39cc5daf44d9647e696e48b" }, monthly: 3.2 * M,
    why: "cache with per-key expiry timers and timeout callbacks", runner: "mocha", files: /^test\.js$/, roots: ["test.js"], dev: ["chai", "sinon", "sinon-chai"], extra: { mocha: "10.8.2" } },
  { pkg: "express-session", version: "1.19.0", source: { git: "expressjs/session", commit: "2c9512fb790e4bf80b3b62305eb8078028607785" }, monthly: 15.3 * M,
    why: "session store with expiry, save/destroy against concurrent requests", runner: "mocha", files: /^test\/(session|cookie)\.js$/, dev: ["mocha", "supertest", "express", "cookie-parser", "after"],
    runnerArgs: ["--require", "test/support/env", "--timeout", "20000"] },
  // --- HTTP clients and servers: keep-alive, timeouts, proxies ---
  { pkg: "undici", version: "8.10.0", source: { git: "nodejs/undici", commit: "7eb7c8ec8f23acd9c3da93a286162f8c1dc68326" }, monthly: 216.3 * M,
    why: "HTTP client pools: keep-alive, pipelining, socket and request timeouts, close and destroy (the pool/keep-alive/timeout files)",
    runner: "node:test", files: /^test\/(pool|client-keep-alive|close-and-destroy|socket-timeout|agent-connection-management|balanced-pool|client-reconnect|request-timeout|client-idempotent|client-pipelining)[\w.-]*\.js$/,
    dev: ["@matteo.collina/tspl", "@sinonjs/fake-timers", "abort-controller", "proxy", "ws", "@metcoder95/https-pem"] },
  { pkg: "agentkeepalive", version: "4.6.0", source: { git: "node-modules/agentkeepalive", commit: "422e9fc35aaa076da6120f634f85ffc8c860d85a" }, monthly: 72.0 * M,
    why: "keep-alive agent: free-socket timeouts, socket reuse after server close", runner: "mocha", files: /^test\/[\w.-]+\.test\.js$/, dev: ["mm", "pedding"], extra: { mocha: "10.8.2" },
    exclude: [{ re: /https|ts\.test/, why: "TLS (not intercepted yet) / TypeScript compile" }], runnerArgs: ["--timeout", "30000"] },
  { pkg: "follow-redirects", version: "1.15.11", source: { git: "follow-redirects/follow-redirects", commit: "21ef28a544c5e57f4c34b8476d75f2144609a1eb" }, monthly: 314.1 * M,
    why: "redirecting requests: timeouts across redirects, abort, response/error ordering", runner: "mocha", files: /^test\/test\.js$/, dev: ["mocha", "express", "concat-stream", "lolex"] },
  { pkg: "http-proxy", version: "1.18.1", source: { git: "http-party/node-http-proxy", commit: "9b96cd725127a024dabebec6c7ea8c807272223d" }, monthly: 89.8 * M,
    why: "proxying requests and WebSockets: proxy timeouts, client aborts, upstream errors", runner: "mocha", files: /^test\/lib-[\w.-]+-test\.js$/,
    dev: ["mocha", "expect.js", "async", "concat-stream", "semver", "socket.io", "socket.io-client", "sse", "ws"], exclude: [{ re: /https/, why: "TLS (not intercepted yet)" }] },
  { pkg: "needle", version: "3.5.0", source: { npm: "3.5.0" }, monthly: 45.0 * M,
    why: "HTTP client: open/read timeouts, socket cleanup, stream output", runner: "mocha", files: /^test\/[\w]+_spec\.js$/,
    dev: ["mocha", "should", "sinon", "q", "xml2js", "JSONStream", "jschardet", "pump"], runnerArgs: ["--timeout", "20000"] },
  { pkg: "on-finished", version: "2.4.1", source: { git: "jshttp/on-finished", commit: "500c84cec0c413380a22a16f2aea140341bab0c1" }, monthly: 327.6 * M,
    why: "a callback when a request/response finishes, closes or errors: the ordering of socket and stream events", runner: "mocha", files: /^test\/test\.js$/, dev: ["mocha"] },
  { pkg: "body-parser", version: "2.3.0", source: { git: "expressjs/body-parser", commit: "b1f3d588c5dca4b3a4ca7d5d3765c9129118926a" }, monthly: 314.1 * M,
    why: "request bodies read from the socket: limits, aborted requests, errors", runner: "mocha", files: /^test\/[\w-]+\.js$/, dev: ["mocha", "supertest"] },
  { pkg: "compression", version: "1.8.1", source: { git: "expressjs/compression", commit: "fb4902f1035649ed2a0baaf17ef3ffa1e62312ae" }, monthly: 190.4 * M,
    why: "streaming zlib between res.write and the socket: flush, backpressure, end", runner: "mocha", files: /^test\/compression\.js$/, dev: ["mocha", "supertest", "after"] },
  { pkg: "light-my-request", version: "6.8.1", source: { npm: "6.8.1" }, monthly: 20.5 * M,
    why: "fake HTTP request/response streams: payload and stream ordering, aborts", runner: "node:test", files: /^test\/[\w.-]+\.test\.js$/,
    dev: ["end-of-stream", "express", "form-auto-content", "form-data", "formdata-node", "multer", "undici", "@fastify/ajv-compiler"] },
  { pkg: "close-with-grace", version: "2.5.0", source: { npm: "2.5.0" }, monthly: 1.0 * M,
    why: "graceful shutdown: signals, uncaught errors and the close delay racing", runner: "tape", files: /^test\/close\.test\.js$/, dev: ["tape"] },
  // --- WebSockets and streams ---
  { pkg: "ws", version: "8.21.0", source: { git: "websockets/ws", commit: "a2f4e7c046c2112bbce6fef39a083dac77d6f0d2" }, monthly: 664.2 * M,
    why: "WebSocket client and server: close handshake, terminate, ping timeouts, server close while upgrading", runner: "mocha", files: /^test\/[\w-]+\.test\.js$/,
    dev: ["mocha"], runnerArgs: ["--timeout", "30000"] },
  { pkg: "sonic-boom", version: "5.0.2", source: { npm: "5.0.2" }, monthly: 93.5 * M,
    why: "file stream with async writes, reopen, flush and fsync racing end()", runner: "node:test", files: /^test\/[\w-]+\.test\.js$/, dev: ["@sinonjs/fake-timers", "proxyquire"] },
  { pkg: "pino-abstract-transport", version: "3.0.0", source: { npm: "3.0.0" }, monthly: 93.7 * M,
    why: "transport streams in a worker thread: close and end ordering", runner: "node:test", files: /^test\/[\w-]+\.test\.js$/, dev: ["@matteo.collina/tspl", "thread-stream"] },
  { pkg: "pump", version: "3.0.4", source: { npm: "3.0.4" }, monthly: 251.2 * M,
    why: "pipes streams and destroys all when one closes: close/finish orderings", runner: "exit", files: /^test-node\.js$/, roots: ["test-node.js"] },
  { pkg: "pumpify", version: "2.0.1", source: { npm: "2.0.1" }, monthly: 45.3 * M,
    why: "a pipeline as one duplex: destroy and error propagation", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape", "through2"] },
  { pkg: "duplexify", version: "4.1.3", source: { npm: "4.1.3" }, monthly: 105.3 * M,
    why: "a writable and a readable set asynchronously: end/finish/close orderings", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape", "through2", "concat-stream"] },
  { pkg: "end-of-stream", version: "1.4.5", source: { git: "mafintosh/end-of-stream", commit: "cea89de8165f24e183603e63839522ec22af58df" }, monthly: 261.1 * M,
    why: "detects a stream's end, error or premature close: event ordering", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape"] },
  { pkg: "split2", version: "4.2.0", source: { npm: "4.2.0" }, monthly: 190.3 * M,
    why: "line splitting transform: flush and destroy", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape", "binary-split", "callback-stream"] },
  { pkg: "stream-shift", version: "1.0.3", source: { npm: "1.0.3" }, monthly: 93.8 * M,
    why: "reads one chunk from a stream's buffer across stream versions", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape", "through2"] },
  { pkg: "bl", version: "7.0.13", source: { npm: "7.0.13" }, monthly: 231.2 * M,
    why: "buffer list duplex: callback vs. stream end", runner: "tape", files: /^test\/test\.js$/, dev: ["tape"] },
  { pkg: "cloneable-readable", version: "3.0.0", source: { npm: "3.0.0" }, monthly: 11.6 * M,
    why: "clones a readable: clones that start late, destroy while flowing", runner: "tape", files: /^test\.js$/, roots: ["test.js"], dev: ["tape", "flush-write-stream", "from2"] },
  { pkg: "through2", version: "5.0.12", source: { npm: "5.0.12" }, monthly: 164.8 * M,
    why: "transform stream helper: flush and async transforms", runner: "exit", files: /^test\/test\.js$/, extra: { "readable-stream": "4.7.0" } },
  // --- files: lockfiles, atomic writes, fs queues ---
  { pkg: "lockfile", version: "1.0.4", source: { npm: "1.0.4" }, monthly: 10.7 * M,
    why: "lock files with stale detection, retries and contention", runner: "tap", files: /^test\/[\w-]+\.js$/, dev: ["tap", "touch"] },
  { pkg: "write-file-atomic", version: "7.0.1", source: { git: "npm/write-file-atomic", commit: "7997ea34e3c996473fe458c0dfd9875fe23d2399" }, monthly: 332.0 * M,
    why: "atomic writes through a temp file and rename; concurrent writes to one file are queued", runner: "tap", files: /^test\/[\w-]+\.js$/, dev: ["tap"] },
  { pkg: "graceful-fs", version: "4.2.11", source: { git: "isaacs/node-graceful-fs", commit: "234379906b7d2f4c9cfeb412d2516f42b0fb4953" }, monthly: 474.0 * M,
    why: "retries EMFILE opens from a queue with timers", runner: "tap", files: /^test\/[\w-]+\.js$/, dev: ["tap", "import-fresh", "mkdirp", "rimraf"] },
  // --- processes and shutdown ---
  { pkg: "tree-kill", version: "1.2.2", source: { git: "pkrumins/node-tree-kill", commit: "cb478381547107f5c53362668533f634beff7e6e" }, monthly: 120.5 * M,
    why: "kills a process tree found through ps while it changes", runner: "mocha", files: /^test\/test\.js$/, extra: { mocha: "10.8.2" } },
  { pkg: "on-exit-leak-free", version: "2.1.2", source: { npm: "2.1.2" }, monthly: 69.0 * M,
    why: "exit handlers held by weak references: gc and exit orderings", runner: "tap", files: /^test\/[\w.-]+\.test\.js$/, extra: { tap: "16.3.9" } },
];
