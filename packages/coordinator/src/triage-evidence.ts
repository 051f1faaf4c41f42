// Evidence for crash triage (issue 5): run example bug families through the
// real engines (many short jobs, different seeds, havoc depths, lengths and
// schedules), apply every result exactly as the coordinator does
// (classifyFindings -> applyResult -> recordCrash, real PostgreSQL), then
// compare the buckets with the TRUE bug of each report. The truth never
// comes from a stack: for the input families it is `bugOf(input)` of the
// target (the first byte selects the bug, see examples/input/multi-*.ts),
// for the node family it is the example program itself.
//
// merge  = a bucket holding reports of 2+ true bugs (must be 0)
// extra  = (buckets - true bugs) / true bugs       (must be <= 5%)
// The flood throttle of recordCrash stays at its default (50 new buckets per
// campaign per minute): each family is one campaign and opens far fewer
// buckets, and the run asserts that no flood bucket was made.
//
// Shared by bench/triage-evidence.ts (large budgets, the table of
// docs/triage-evidence.md) and test/triage-evidence.test.ts through
// @fuzzfarm/coordinator/testing. The coordinator never runs targets: the
// caller hands in the engines.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createCampaign, insertJobs, upsertTarget, applyResult, type Db } from "@fuzzfarm/db";
import { findingKind, parseJob, publishableResult, type Engine, type EngineResultInput, type JobPayloadInput, type Reproducer } from "@fuzzfarm/protocol";
import { classifyFindings } from "./classify";

/** One campaign's worth of jobs against one target. */
interface Plan {
  family: string;
  engine: "input" | "node";
  targetPath: string;
  /** Executions per job (input families with inputRunsScale > 0). */
  runs?: number;
  jobs: { options: Record<string, unknown>; seeds: string[] }[];
  /** The true bug of a report, from its reproducer only (null: the reproducer cannot trigger any planted bug). */
  truth: (repro: Reproducer) => string | null;
}

/** The engines the evidence runs (the worker's; the coordinator never runs targets itself). */
export interface EvidenceEngines {
  input: Engine<"input">;
  node: Engine<"node">;
}

export interface EvidenceOptions {
  /** The repository checkout: examples/ is read from it, and report paths are relative to it. Required. */
  repoRoot: string;
  /** The engines that run the jobs and replay attributed inputs. Required. */
  engines: EvidenceEngines;
  /** Fuzz jobs per input family (each a fresh seed / havoc depth / length). Default 24. */
  inputJobs?: number;
  /** Wall-time budget of one input job, s. Default 3. */
  inputSeconds?: number;
  /**
   * Executions per input job, as a multiple of the family's `runs` (about what 2.5 s gives on an idle 2-core
   * machine); 0 (default) = the time budget alone. With it, a loaded machine takes longer instead of finding less.
   */
  inputRunsScale?: number;
  /** Node-engine jobs per examples/node-races program (0 = skip the node family). Default 3. */
  nodeJobsPerProgram?: number;
  /** Wall-time budget of one node job, s. Default 5. */
  nodeSeconds?: number;
  /** Jobs run at the same time (the machine has 2 cores). Default 2. */
  parallel?: number;
  log?: (line: string) => void;
}

/**
 * The input families: each target's `bugOf` is its ground truth. `heldOut`: a family written after the
 * triage rules were last changed and never used to change them (the others were: their results shaped the
 * rules), so its figures measure the rules on crashes they were not tuned on.
 */
export const INPUT_FAMILIES = [
  // parser has a hang bug: a short timeout keeps hangs cheap
  { family: "multi-parser", file: "multi-parser.ts", timeoutMs: 600, runs: 3000, heldOut: false },
  { family: "multi-codec", file: "multi-codec.ts", timeoutMs: 1000, runs: 6000, heldOut: false },
  // vm has an out-of-memory bug: a small heap, and a timeout long enough that it never looks like a hang
  { family: "multi-vm", file: "multi-vm.ts", timeoutMs: 3000, maxMemoryMb: 64, runs: 800, heldOut: false },
  { family: "multi-store", file: "multi-store.ts", timeoutMs: 1000, runs: 4000, heldOut: true },
] as const;

/** Families the triage rules were not tuned on. */
export const HELD_OUT_FAMILIES: readonly string[] = INPUT_FAMILIES.filter((f) => f.heldOut).map((f) => f.family);

const NODE_STRATEGIES = ["mix", "shuffle", "delay", "pct"] as const;

/** Deterministic job variety: job i gets its own seed, havoc depth, length limit and starting seeds. */
function inputJobs(n: number, timeoutMs: number, maxMemoryMb: number | undefined) {
  return Array.from({ length: n }, (_, i) => ({
    options: { seed: 1000 + i * 7919, havocDepth: 2 + (i % 5), maxLen: [16, 64, 256][i % 3], timeoutMs, ...(maxMemoryMb ? { maxMemoryMb } : {}) },
    // every other job starts from a few arbitrary bytes instead of nothing
    seeds: i % 2 ? [Buffer.from([i & 0xff, (i * 31) & 0xff, 0x20, 0x0a]).toString("base64")] : [],
  }));
}

async function plans(o: Required<Omit<EvidenceOptions, "log">>): Promise<Plan[]> {
  const out: Plan[] = [];
  const NODE_DIR = join(o.repoRoot, "examples/node-races");
  for (const f of INPUT_FAMILIES) {
    const targetPath = join(o.repoRoot, "examples/input", f.file);
    const mod = (await import(pathToFileURL(targetPath).href)) as { bugOf(d: Uint8Array): string | null };
    out.push({
      family: f.family,
      engine: "input",
      targetPath,
      runs: o.inputRunsScale > 0 ? Math.round(f.runs * o.inputRunsScale) : undefined,
      jobs: inputJobs(o.inputJobs, f.timeoutMs, "maxMemoryMb" in f ? f.maxMemoryMb : undefined),
      truth: (r) => (r.engine !== "input" || r.input === undefined ? null : mod.bugOf(Buffer.from(r.input, "base64"))),
    });
  }
  if (o.nodeJobsPerProgram > 0) {
    const programs = readdirSync(NODE_DIR).filter((n) => /\.(c?js|mjs)$/.test(n) && !n.includes(".fixed."));
    for (const p of programs.sort()) {
      out.push({
        family: "node-races",
        engine: "node",
        targetPath: join(NODE_DIR, p),
        jobs: Array.from({ length: o.nodeJobsPerProgram }, (_, i) => ({
          options: { strategy: NODE_STRATEGIES[i % NODE_STRATEGIES.length], seedStart: 100 + i * 1000, timeoutMs: 3000 },
          seeds: [],
        })),
        truth: () => `node.${basename(p).replace(/\.(c?js|mjs)$/, "")}`,
      });
    }
  }
  return out;
}

/** One report as stored, with its true bug. */
export interface ReportRow {
  family: string;
  target: string;
  bucketId: string;
  signature: string;
  kind: string;
  truth: string | null;
  /** The bug its reproducer names before any replay check (null: none); equals `truth` for attributed reports. */
  claimed: string | null;
  message: string;
  /** Why a report has no truth: its reproducer matches no planted bug, or its replay failed differently. */
  why?: string;
}

export interface FamilyStats {
  family: string;
  /** The triage rules were not tuned on this family (see INPUT_FAMILIES). */
  heldOut: boolean;
  jobs: number;
  reports: number;
  /** Reports whose reproducer cannot trigger any planted bug (an engine attribution slip, not triage). */
  unattributed: number;
  trueBugs: number;
  buckets: number;
  /** Buckets holding reports of 2+ true bugs (attributed reports only). */
  merges: number;
  /**
   * Buckets holding reports of 2+ bugs when the unattributed reports count too, each as the bug its
   * reproducer names (a bug of its own when it names none): what a user of the bucket would see.
   */
  mergesCountingUnattributed: number;
  /** Bugs whose reports landed in 2+ buckets. */
  splitBugs: number;
  extraBuckets: number;
}

export interface Evidence {
  families: FamilyStats[];
  total: FamilyStats;
  /** (buckets - true bugs) / true bugs over all families. */
  extraRate: number;
  /** Per true bug: reports and the buckets they landed in (signature of each). */
  bugs: { family: string; bug: string; reports: number; buckets: { id: string; signature: string; reports: number }[] }[];
  /** Merged buckets in detail (empty when triage kept every bug apart). */
  mergedBuckets: { family: string; bucketId: string; signature: string; bugs: Record<string, number> }[];
  /** Buckets that merge only once the unattributed reports are counted, in detail. */
  unattributedMerges: { family: string; bucketId: string; signature: string; bugs: Record<string, number> }[];
  /** Up to 20 reports left out of the measure, with the reason. */
  unattributed: ReportRow[];
  floodBuckets: number;
  seconds: number;
}

/** Run everything against `db` (a fresh schema) and measure. */
export async function collectEvidence(db: Db, opts: EvidenceOptions): Promise<Evidence> {
  const o = { inputJobs: 24, inputSeconds: 3, inputRunsScale: 0, nodeJobsPerProgram: 3, nodeSeconds: 5, parallel: 2, ...opts };
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const all = await plans(o);
  const truthOf = new Map<string, Plan>();
  const queue: { plan: Plan; campaignId: string; targetId: string; jobId: string; payload: JobPayloadInput }[] = [];
  for (const plan of all) {
    const t = await upsertTarget(db, { name: `${plan.family}/${basename(plan.targetPath)}`, engine: plan.engine, path: plan.targetPath });
    const c = await createCampaign(db, { targetId: t.id, engine: plan.engine, config: { evidence: true }, deadline: new Date(Date.now() + 3_600_000) });
    truthOf.set(t.id, plan);
    plan.jobs.forEach((j, i) => {
      const jobId = `${c.id}-${i}`;
      const seconds = plan.engine === "input" ? o.inputSeconds : o.nodeSeconds;
      queue.push({
        plan,
        campaignId: c.id,
        targetId: t.id,
        jobId,
        payload: {
          engine: plan.engine,
          jobId,
          campaignId: c.id,
          target: { name: t.name, path: plan.targetPath },
          budget: { runs: plan.runs ?? (plan.engine === "input" ? 1_000_000 : 1000), seconds },
          options: j.options,
          seeds: j.seeds.map((data, k) => ({ id: `s${k}`, data })),
        } as JobPayloadInput,
      });
    });
    await insertJobs(db, plan.jobs.map((_, i) => ({ id: `${c.id}-${i}`, campaignId: c.id, kind: "fuzz", payload: {} })));
  }

  // Interleave families so parallel jobs are of different engines/targets, as on a farm.
  queue.sort((a, b) => Number(a.jobId.split("-").pop()) - Number(b.jobId.split("-").pop()));
  let applying: Promise<void> = Promise.resolve();
  let next = 0;
  let done = 0;
  async function worker() {
    while (next < queue.length) {
      const q = queue[next++]!;
      const job = parseJob(q.payload);
      const workDir = mkdtempSync(join(tmpdir(), "ff-evidence-"));
      const startedAt = new Date().toISOString();
      let res: EngineResultInput;
      try {
        const ctx = { signal: new AbortController().signal, workDir };
        res = job.engine === "input" && job.kind === "fuzz" ? await o.engines.input.run(job, ctx)
          : job.engine === "node" && job.kind === "fuzz" ? await o.engines.node.run(job, ctx)
          : { execs: 0, busyMs: 0 };
      } finally {
        rmSync(workDir, { recursive: true, force: true });
      }
      // published as a worker publishes it: findings keep only what a result may report
      const r = publishableResult(res, { jobId: q.jobId, campaignId: q.campaignId, workerId: "evidence", engine: job.engine, kind: "fuzz", startedAt, finishedAt: new Date().toISOString() });
      if (r.error) throw new Error(`job ${q.jobId} on ${q.plan.targetPath}: ${r.error.kind}: ${r.error.message}`);
      // Results are applied one at a time, like the coordinator's results consumer (concurrency 1).
      applying = applying.then(async () => {
        const classified = await classifyFindings(db, r, q.targetId, o.repoRoot);
        await applyResult(db, r, { targetId: q.targetId, classified });
      });
      await applying;
      done++;
      log(`job ${done}/${queue.length} ${q.plan.family} ${basename(q.plan.targetPath)}: ${r.execs} execs, ${r.findings.length} findings`);
    }
  }
  await Promise.all(Array.from({ length: o.parallel }, worker));

  // Read back what the database holds: every report, its bucket, and the truth from its own stored reproducer.
  const reports = await db.prisma.crashReport.findMany({ select: { bucketId: true, kind: true, message: true, artifact: true, bucket: { select: { targetId: true, signature: true } } } });
  const rows: ReportRow[] = [];
  let reproduced = 0;
  const cacheDir = mkdtempSync(join(tmpdir(), "ff-evidence-repro-"));
  try {
    for (const rep of reports) {
      const plan = truthOf.get(rep.bucket.targetId)!;
      const { reproducer: repro, detail } = rep.artifact as { reproducer: Reproducer; detail: Record<string, unknown> };
      let truth = plan.truth(repro);
      const claimed = truth;
      let why = truth === null ? "its reproducer triggers no planted bug" : undefined;
      // An async error (timer throw, unhandled rejection) is attributed to an input by replaying batches; when two
      // async bugs fire in one batch the engine can name an input of the other one. Such an input is no evidence of
      // the report's bug: it must fail again with the report's kind and message (both depend on the input: the
      // message holds its length or bytes), or the report counts as unattributed.
      // "last-input" (credited without a replay once a key was attributed 3 times) is checked the same way.
      if (truth !== null && detail?.async === true && repro.engine === "input") {
        reproduced++;
        const out = await o.engines.input.reproduce({ path: plan.targetPath }, repro, { signal: new AbortController().signal, workDir: cacheDir });
        if (out.kind === "ok" || findingKind(out) !== rep.kind || out.message !== rep.message) {
          truth = null;
          why = `its replay ended ${out.kind === "ok" ? "ok" : `${findingKind(out)}: ${out.message.slice(0, 80)}`}`;
        }
      }
      rows.push({ family: plan.family, target: basename(plan.targetPath), bucketId: rep.bucketId, signature: rep.bucket.signature, kind: rep.kind, truth, claimed, message: rep.message, why });
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  log(`re-ran ${reproduced} replay-attributed inputs`);
  const floodBuckets = await db.prisma.crashBucket.count({ where: { signature: { startsWith: "flood" } } });
  const jobsByFamily = new Map<string, number>();
  for (const q of queue) jobsByFamily.set(q.plan.family, (jobsByFamily.get(q.plan.family) ?? 0) + 1);
  return { ...measure(rows, jobsByFamily), floodBuckets, seconds: (Date.now() - started) / 1000 };
}

/**
 * Buckets against true bugs, per family and in total. Reports without a truth count as unattributed: left out
 * of merges / splits / extra buckets, and counted in `mergesCountingUnattributed` as the bug their reproducer
 * names (or a bug of their own).
 */
export function measure(rows: ReportRow[], jobsByFamily: Map<string, number>): Omit<Evidence, "floodBuckets" | "seconds"> {
  const families = [...new Set(rows.map((r) => r.family)), ...jobsByFamily.keys()].filter((f, i, a) => a.indexOf(f) === i);
  const stats: FamilyStats[] = [];
  const bugs: Evidence["bugs"] = [];
  const mergedBuckets: Evidence["mergedBuckets"] = [];
  const unattributedMerges: Evidence["unattributedMerges"] = [];
  for (const family of families) {
    const mine = rows.filter((r) => r.family === family);
    const known = mine.filter((r) => r.truth !== null);
    // a bug is identified within its target (buckets are per target)
    const bugKey = (r: ReportRow) => `${r.target}:${r.truth}`;
    const byBucket = new Map<string, Map<string, number>>();
    const byBug = new Map<string, Map<string, number>>();
    const sig = new Map<string, string>();
    for (const r of known) {
      sig.set(r.bucketId, r.signature);
      const b = byBucket.get(r.bucketId) ?? new Map<string, number>();
      b.set(r.truth!, (b.get(r.truth!) ?? 0) + 1);
      byBucket.set(r.bucketId, b);
      const g = byBug.get(bugKey(r)) ?? new Map<string, number>();
      g.set(r.bucketId, (g.get(r.bucketId) ?? 0) + 1);
      byBug.set(bugKey(r), g);
    }
    let merges = 0;
    for (const [bucketId, held] of byBucket) {
      if (held.size < 2) continue;
      merges++;
      mergedBuckets.push({ family, bucketId, signature: sig.get(bucketId)!, bugs: Object.fromEntries(held) });
    }
    // the same buckets with every report counted, the unattributed ones as the bug their reproducer names
    const everyReport = new Map<string, Map<string, number>>();
    mine.forEach((r, i) => {
      const bug = r.truth ?? r.claimed ?? `unattributed report ${i}`;
      const held = everyReport.get(r.bucketId) ?? new Map<string, number>();
      held.set(bug, (held.get(bug) ?? 0) + 1);
      everyReport.set(r.bucketId, held);
    });
    let mergesCountingUnattributed = 0;
    for (const [bucketId, held] of everyReport) {
      if (held.size < 2) continue;
      mergesCountingUnattributed++;
      if ((byBucket.get(bucketId)?.size ?? 0) < 2) {
        unattributedMerges.push({ family, bucketId, signature: mine.find((r) => r.bucketId === bucketId)!.signature, bugs: Object.fromEntries(held) });
      }
    }
    let splitBugs = 0;
    for (const [key, where] of byBug) {
      if (where.size > 1) splitBugs++;
      bugs.push({
        family,
        bug: key.slice(key.indexOf(":") + 1),
        reports: [...where.values()].reduce((a, b) => a + b, 0),
        buckets: [...where].map(([id, n]) => ({ id, signature: sig.get(id)!, reports: n })),
      });
    }
    stats.push({
      family,
      heldOut: HELD_OUT_FAMILIES.includes(family),
      jobs: jobsByFamily.get(family) ?? 0,
      reports: mine.length,
      unattributed: mine.length - known.length,
      trueBugs: byBug.size,
      buckets: byBucket.size,
      merges,
      mergesCountingUnattributed,
      splitBugs,
      extraBuckets: byBucket.size - byBug.size,
    });
  }
  const sum = (k: keyof FamilyStats) => stats.reduce((a, s) => a + (s[k] as number), 0);
  const total: FamilyStats = {
    family: "total",
    heldOut: false,
    jobs: sum("jobs"),
    reports: sum("reports"),
    unattributed: sum("unattributed"),
    trueBugs: sum("trueBugs"),
    buckets: sum("buckets"),
    merges: sum("merges"),
    mergesCountingUnattributed: sum("mergesCountingUnattributed"),
    splitBugs: sum("splitBugs"),
    extraBuckets: sum("extraBuckets"),
  };
  const unattributed = rows.filter((r) => r.truth === null).slice(0, 20);
  return { families: stats, total, extraRate: total.trueBugs ? total.extraBuckets / total.trueBugs : 0, bugs, mergedBuckets, unattributedMerges, unattributed };
}

/** The evidence as markdown tables. */
export function formatEvidence(e: Evidence): string {
  const head =
    "| family | jobs | reports | unattributed | true bugs | buckets | merged buckets | merged, unattributed counted | split bugs | extra buckets |\n|---|---|---|---|---|---|---|---|---|---|";
  const line = (s: FamilyStats) =>
    `| ${s.family}${s.heldOut ? " (held out)" : ""} | ${s.jobs} | ${s.reports} | ${s.unattributed} | ${s.trueBugs} | ${s.buckets} | ${s.merges} | ${s.mergesCountingUnattributed} | ${s.splitBugs} | ${s.extraBuckets} |`;
  const out = [head, ...e.families.map(line), line(e.total).replace("| total |", "| **total** |"), ""];
  out.push(
    `extra-bucket rate: ${(e.extraRate * 100).toFixed(1)}% (limit 5%); merged buckets: ${e.total.merges} (limit 0), ` +
      `${e.total.mergesCountingUnattributed} counting the ${e.total.unattributed} unattributed reports as the bugs their reproducers name; ` +
      `flood buckets: ${e.floodBuckets}; ${e.seconds.toFixed(0)} s`,
    "",
  );
  out.push("| family | true bug | reports | buckets (reports: signature) |\n|---|---|---|---|");
  for (const b of [...e.bugs].sort((x, y) => x.family.localeCompare(y.family) || x.bug.localeCompare(y.bug))) {
    out.push(`| ${b.family} | ${b.bug} | ${b.reports} | ${b.buckets.map((k) => `${k.reports}: \`${k.signature.replaceAll("|", "\\|")}\``).join("<br>")} |`);
  }
  if (e.unattributed.length) {
    out.push("", "Unattributed reports (up to 20):", ...e.unattributed.map((r) => `- ${r.target} ${r.kind} \`${r.message.slice(0, 80)}\`: ${r.why}`));
  }
  if (e.unattributedMerges.length) {
    out.push("", "Buckets merged by unattributed reports:", ...e.unattributedMerges.map((m) => `- ${m.family} \`${m.signature}\`: ${JSON.stringify(m.bugs)}`));
  }
  if (e.mergedBuckets.length) {
    out.push("", "Merged buckets:", ...e.mergedBuckets.map((m) => `- ${m.family} \`${m.signature}\`: ${JSON.stringify(m.bugs)}`));
  }
  return out.join("\n");
}
