// The pull-request scenario of the `fuzzfarm ci` tests (ci.test.ts, local
// campaign; ci-farm.test.ts, campaign on a running farm): a tiny decoder
// whose base has bug A and whose head adds bug B, committed in a git
// repository in a temp dir.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

export const BUG_A = `// A tiny decoder: one known bug on the base branch.
export function fuzz(data) {
  if (data.length > 0 && data[0] === 0x41) {
    throw new Error("bug A: leading A");
  }
}
`;
export const BUG_A_AND_B = `// A tiny decoder: one known bug on the base branch.
export function fuzz(data) {
  if (data.length > 0 && data[0] === 0x41) {
    throw new Error("bug A: leading A");
  }
  checkTail(data);
}

function checkTail(data) {
  if (data.length > 1 && data[1] === 0x42) {
    throw new TypeError("bug B: B second");
  }
}
`;
/** The head with bug A fixed: only bug B left. */
export const ONLY_B = BUG_A_AND_B.replace('throw new Error("bug A: leading A");', "return;");

/** 1-based line of the first line of `text` holding `needle`. */
export const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** Runs git in `dir`; asserts it succeeded; its trimmed stdout. */
export function git(dir: string, ...args: string[]): string {
  const r = spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

/** A new repository in `dir` (branch main) with one commit per entry: [message, files written]. */
export async function repoWith(dir: string, commits: [string, Record<string, string>][]): Promise<void> {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "ci@example.invalid");
  git(dir, "config", "user.name", "ci");
  for (const [message, files] of commits) {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    git(dir, "add", ...Object.keys(files));
    git(dir, "commit", "-q", "-m", message);
  }
}

/** The scenario's two commits: base (package.json, decoder.js with bug A, and `extra` files), then head (bug B added). */
export function pullRequestRepo(dir: string, extra: Record<string, string> = {}): Promise<void> {
  return repoWith(dir, [
    ["base: decoder with bug A", { "package.json": '{"type":"module"}\n', "decoder.js": BUG_A, ...extra }],
    ["head: adds checkTail (bug B)", { "decoder.js": BUG_A_AND_B }],
  ]);
}
