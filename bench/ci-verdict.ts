// Time to a pull request's verdict with `fuzzfarm ci`: the same pull request
// (a base with bug A, a head that adds bug B) run
// by the real CLI in `code-change` mode (the campaign ends once its new
// buckets settle) and, as the baseline measured in the same run, in `batch`
// mode (the whole time box). For each it prints when the campaign first
// showed the new bucket (its progress line's bucket count), when the
// replays confirmed it, when the command ended, and the ratio of the two
// wall times. The aim: the code-change run ends within 20 s of finding its
// new bucket. Each run has its own database and queue prefix; the state
// directory of a first `batch` run on the base makes A known.
//   node --import tsx bench/ci-verdict.ts [timeBoxSeconds=60] [rounds=1]
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@fuzzfarm/db/testing";

/** git in `dir`; throws with its stderr when it fails. */
function git(dir: string, ...args: string[]): void {
  const r = spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

/** The pull request: main's decoder throws on a leading "A" (bug A); the head adds a throw on "B" second (bug B). */
function pullRequestRepo(dir: string): void {
  const bugA = 'export function fuzz(data) {\n  if (data.length > 0 && data[0] === 0x41) throw new Error("bug A");\n}\n';
  const bugB = bugA.replace("\n}\n", '\n  tail(data);\n}\nfunction tail(data) {\n  if (data.length > 1 && data[1] === 0x42) throw new TypeError("bug B");\n}\n');
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "bench@example.invalid");
  git(dir, "config", "user.name", "bench");
  writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
  for (const [message, text] of [["base: bug A", bugA], ["head: bug B", bugB]] as const) {
    writeFileSync(join(dir, "decoder.js"), text);
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", message);
  }
}

const REPO = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(REPO, "apps", "cli", "src", "main.ts");
const timeBox = Number(process.argv[2] ?? 60);
const rounds = Number(process.argv[3] ?? 1);

interface Timed {
  code: number | null;
  wall: number;
  /** Seconds from start to the first progress line with more buckets than the base has (A and B hit). */
  found: number | null;
  /** Seconds from start to the replay line that confirmed the new bucket. */
  confirmed: number | null;
  last: string;
}

async function ci(dir: string, args: string[], knownBuckets: number): Promise<Timed> {
  const database = await createTestDatabase();
  const env = { ...process.env, FUZZFARM_DATABASE_URL: database.url, FUZZFARM_QUEUE_PREFIX: `ffbench-${randomBytes(3).toString("hex")}`, FUZZFARM_SKIP_SELFTEST: "1", FUZZFARM_JOB_KEY: randomBytes(32).toString("base64url"), GITHUB_EVENT_PATH: "", GITHUB_BASE_REF: "" };
  const t0 = Date.now();
  const at = () => (Date.now() - t0) / 1000;
  let found: number | null = null;
  let confirmed: number | null = null;
  let out = "";
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", CLI, "ci", "--target", join(dir, "decoder.js"), "--workers", "1", "--replays", "1", "--time", `${timeBox}s`, "--job-seconds", "4s", ...args], { cwd: REPO, env });
    let buf = "";
    p.stderr.on("data", (d) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop()!;
      for (const l of lines) {
        const m = /\] execs .* buckets (\d+)$/.exec(l);
        if (m && found === null && Number(m[1]) > knownBuckets) found = at();
        if (confirmed === null && /head [1-9]\d*\/\d+, base 0\/\d+ -> new/.test(l)) confirmed = at();
      }
    });
    p.stdout.on("data", (d) => (out += d));
    p.on("close", resolve);
  });
  const wall = at();
  await database.drop();
  return { code, wall, found, confirmed, last: out.trim().split("\n").pop() ?? "" };
}

const fmt = (x: number | null) => (x === null ? "-" : `${x.toFixed(1)}s`);

for (let round = 0; round < rounds; round++) {
  const dir = mkdtempSync(join(tmpdir(), "ffbench-ci-"));
  try {
    pullRequestRepo(dir);
    // A known from the base branch: a batch run on HEAD~1's tree fills the state directory.
    git(dir, "checkout", "-q", "HEAD~1");
    const seed = await ci(dir, ["--mode", "batch", "--time", "15s", "--base-ref", "HEAD"], 0);
    git(dir, "checkout", "-q", "main");
    const state = join(dir, ".fuzzfarm-state");
    const saved = `${dir}-state`;
    cpSync(state, saved, { recursive: true });
    console.log(`round ${round + 1}: base run ${fmt(seed.wall)} (${seed.last})`);
    const rows: [string, Timed][] = [];
    for (const mode of ["code-change", "batch"]) {
      rmSync(state, { recursive: true, force: true });
      cpSync(saved, state, { recursive: true });
      rows.push([mode, await ci(dir, ["--mode", mode, "--base-ref", "HEAD~1"], 1)]);
    }
    rmSync(saved, { recursive: true, force: true });
    for (const [mode, r] of rows)
      console.log(
        `  ${mode.padEnd(12)} exit ${r.code}  new bucket in campaign ${fmt(r.found)}  confirmed ${fmt(r.confirmed)}  ended ${fmt(r.wall)}  ended - confirmed ${r.confirmed === null ? "-" : fmt(r.wall - r.confirmed)}  ended - found ${r.found === null ? "-" : fmt(r.wall - r.found)}  (${r.last})`,
      );
    const [cc, batch] = [rows[0]![1], rows[1]![1]];
    console.log(`  wall time code-change / batch (time box ${timeBox}s): ${(cc.wall / batch.wall).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
