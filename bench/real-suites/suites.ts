// Real packages' own test suites, as published on npm (their tarballs ship
// test/), with the devDependencies those tests require, every version
// pinned. Each test file runs as a program: `node file` and
// `fuzzfarm node file`. `exclude` drops files that need a build step, a
// browser, or that do not finish under plain node either (reason next to it).

export interface Suite {
  /** npm package name and exact version. */
  pkg: string;
  version: string;
  /** Runner the files are written for (each file is run directly; its TAP output is counted). */
  runner: "node:test" | "tap";
  /** Extra packages the tests require (devDependencies), exact versions. */
  extra: Record<string, string>;
  /** Test files: paths relative to the package directory matching this. */
  files: RegExp;
  /** Files left out, with why. */
  exclude?: { re: RegExp; why: string }[];
}

export const SUITES: Suite[] = [
  {
    pkg: "pino", version: "10.4.0", runner: "node:test",
    extra: {
      "@matteo.collina/tspl": "0.2.0", split2: "4.2.0", "pino-pretty": "13.2.0", proxyquire: "2.1.3", pump: "3.0.4",
      through2: "4.0.2", "flush-write-stream": "2.0.0", "strip-ansi": "6.0.1", execa: "5.1.1", "import-fresh": "3.3.1",
      semver: "7.8.6", rimraf: "6.1.4",
    },
    files: /^test\/(transport\/)?[\w.-]+\.test\.js$/,
    exclude: [
      { re: /^test\/browser/, why: "browser tests (airtap)" },
      { re: /transport\/big\.test\.js$/, why: "does not finish under plain node here (40 s kill)" },
      { re: /transpiled|bundlers-support|native-type-stripping|module-link/, why: "needs the TypeScript transpile step / bundler fixtures" },
    ],
  },
  { pkg: "thread-stream", version: "4.2.1", runner: "node:test", extra: { desm: "1.3.1" }, files: /^test\/[\w.-]+\.test\.m?js$/,
    exclude: [
      { re: /transpiled|bundlers|ts\.test|esm\.test/, why: "needs the TypeScript transpile step (esm.test.mjs loads test/ts/*.es6.mjs etc., which `npm run transpile` creates; without them the file fails differently from run to run)" },
      { re: /watch-mode/, why: "runs node --watch" },
    ] },
  { pkg: "avvio", version: "9.3.1", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "find-my-way", version: "9.10.2", runner: "node:test", extra: { rfdc: "1.4.1", proxyquire: "2.1.3" }, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "fast-json-stringify", version: "6.4.0", runner: "node:test", extra: { "is-my-json-valid": "2.20.6", typebox: "1.3.36" }, files: /^test\/[\w.-]+\.test\.js$/,
    exclude: [{ re: /webpack/, why: "bundles with webpack (not installed: 30 MB for one file)" }] },
  { pkg: "process-warning", version: "5.1.1", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/,
    exclude: [{ re: /jest/, why: "jest" }] },
  { pkg: "@fastify/merge-json-schemas", version: "0.2.2", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "json-schema-ref-resolver", version: "3.0.1", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "@fastify/proxy-addr", version: "5.1.3", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "fastify-plugin", version: "5.1.0", runner: "node:test", extra: { proxyquire: "2.1.3", fastify: "5.6.1" }, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "@fastify/error", version: "4.3.0", runner: "node:test", extra: {}, files: /^test\/[\w.-]+\.test\.js$/ },
  { pkg: "on-exit-leak-free", version: "2.1.2", runner: "tap", extra: { tap: "16.3.9" }, files: /^test\/[\w.-]+\.test\.js$/ },
];
