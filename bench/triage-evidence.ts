// Evidence for crash triage: the repository's own example bugs run through
// the real engines (many short jobs, different seeds, havoc depths, lengths
// and schedules), every result applied as the coordinator applies it
// (classifyFindings -> applyResult -> recordCrash, real PostgreSQL), the
// buckets compared with the TRUE bug of each report (never read from a
// stack). The measure lives in @fuzzfarm/coordinator/testing, shared with
// packages/coordinator/test/triage-evidence.test.ts; this script runs it with
// larger budgets and prints the tables of docs/triage-evidence.md.
//
//   node --import tsx bench/triage-evidence.ts [jobsPerInputFamily=24] [secondsPerJob=3] [nodeJobsPerProgram=3] [inputRunsScale=0]
// inputRunsScale > 0 bounds input jobs by executions (that multiple of about what 2.5 s gives on an idle
// machine) with secondsPerJob as a cap: on a loaded machine, jobs take longer instead of finding less.
import { fileURLToPath } from "node:url";
import { collectEvidence, formatEvidence } from "@fuzzfarm/coordinator/testing";
import { createTestDb } from "@fuzzfarm/db/testing";
import { inputEngine } from "@fuzzfarm/engine-input";
import { nodeEngine } from "@fuzzfarm/engine-node";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const [jobs, seconds, nodeJobs, runsScale] = process.argv.slice(2).map(Number);
const db = await createTestDb();
try {
  const e = await collectEvidence(db, {
    repoRoot: REPO_ROOT,
    engines: { input: inputEngine, node: nodeEngine },
    inputJobs: jobs || 24,
    inputSeconds: seconds || 3,
    nodeJobsPerProgram: Number.isFinite(nodeJobs) ? nodeJobs : 3,
    inputRunsScale: runsScale || 0,
    log: (l) => process.stderr.write(l + "\n"),
  });
  console.log(`node ${process.version}, command: node --import tsx bench/triage-evidence.ts ${process.argv.slice(2).join(" ")}\n`);
  console.log(formatEvidence(e));
} finally {
  await db.close();
}
