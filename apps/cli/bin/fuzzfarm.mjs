#!/usr/bin/env node
// Launcher of a checkout: runs the TypeScript CLI in this very process (tsx's
// loader registered from FuzzFarm's own node_modules, not the working
// directory's), so signals reach the command itself. The published package's
// bin is the built dist/fuzzfarm.cjs instead (scripts/build.mjs, pack.mjs).
import { register } from "tsx/esm/api";

register();
await import("../src/bin.ts");
