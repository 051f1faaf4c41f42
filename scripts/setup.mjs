#!/usr/bin/env node
// One-shot, idempotent preparation of a checkout: install dependencies when
// missing or stale (npm ci), generate the Prisma client, make sure Redis and
// PostgreSQL answer (starting them when they are local and down), create the
// databases and apply migrations. Plain JavaScript: it runs before anything
// is installed. Every step is skipped when already done.
import { spawnSync } from "node:child_process";
import { existsSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const say = (m) => process.stderr.write(`setup: ${m}\n`);
const sh = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
  if (r.status !== 0) {
    say(`failed: ${cmd} ${args.join(" ")} (exit ${r.status})`);
    process.exit(2);
  }
};
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

// 1. Dependencies.
const stamp = join(root, "node_modules", ".package-lock.json");
if (!existsSync(stamp) || mtime(join(root, "package-lock.json")) > mtime(stamp)) {
  say("installing dependencies (npm ci)");
  sh("npm", ["ci", "--no-audit", "--no-fund"]);
}

// 2. Prisma client (generated, not committed). Offline recipe: Wasm schema engine, placeholder native engine paths.
const generated = join(root, "packages", "db", "src", "generated", "client.ts");
const schema = join(root, "prisma", "schema.prisma");
mkdirSync(join(root, ".fuzzfarm"), { recursive: true });
const placeholder = join(root, ".fuzzfarm", "prisma-engine-placeholder");
if (!existsSync(placeholder)) writeFileSync(placeholder, "");
if (mtime(generated) < mtime(schema)) {
  say("generating the Prisma client");
  sh(join(root, "node_modules", ".bin", "prisma"), ["generate"], {
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_QUERY_ENGINE_LIBRARY: placeholder, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1", DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/fuzzfarm" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

// 3. Services and migrations (TypeScript from here on, through tsx).
if (!process.argv.includes("--no-services")) sh(process.execPath, ["--import", "tsx", join(root, "scripts", "services.ts")]);

// 4. bubblewrap (`bwrap`), which the workers' "fs" sandbox of target processes runs on (packages/worker/src/sandbox.ts):
// Debian's package, like chromium below. Without it workers fall back to the "net" level and say so.
if (process.platform === "linux" && spawnSync("sh", ["-c", "command -v bwrap"], { stdio: "ignore" }).status !== 0) {
  if (process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0) {
    say("installing bubblewrap (apt-get) for the workers' target sandbox");
    sh("sh", ["-c", "apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null"]);
  } else say("bwrap is missing: install Debian's bubblewrap package for the workers' fs sandbox (apt-get install bubblewrap); workers fall back to the net sandbox without it");
}

// 5. Chromium for the dashboard's browser tests (`--browser`): Debian's package, as the machines here allow.
if (process.argv.includes("--browser")) {
  const has = spawnSync("sh", ["-c", "command -v chromium"], { stdio: "ignore" }).status === 0;
  if (!has) {
    if (process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0) {
      say("installing chromium (apt-get) for the browser tests");
      sh("sh", ["-c", "apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null"]);
    } else say("chromium is missing: install Debian's chromium package for the browser tests (apt-get install chromium)");
  }
}
