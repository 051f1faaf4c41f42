#!/usr/bin/env node
// Launcher: run the TypeScript CLI through tsx's loader with the stock node binary.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const r = spawnSync(process.execPath, ["--import", "tsx", main, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? (r.signal ? 128 + 1 : 2));
