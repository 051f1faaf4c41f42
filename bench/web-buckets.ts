// Benchmark: dashboard server time with 100,000 crash reports and 5,000
// buckets in PostgreSQL. Seeds its own schema (in database fuzzfarm_bench,
// dropped at the end), builds the app, and times requests with inject()
// (routing + queries + rendering/serialization; no network).
//
// Baseline in the same run: the same requests with the indexes of migration
// 20261210150000_dashboard_indexes dropped, then with them (ratio = before/after).
// Target: bucket list and campaign page p95 < 100 ms.
//
//   node --import tsx bench/web-buckets.ts [--reports 100000] [--buckets 5000] [--runs 60]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createTestDb } from "@fuzzfarm/db/testing";
import { openQueues } from "@fuzzfarm/queue";
import { buildApp } from "@fuzzfarm/web";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const REPORTS = arg("reports", 100_000);
const BUCKETS = arg("buckets", 5_000);
const RUNS = arg("runs", 60);
const SAMPLES = arg("samples", 20_000);
const LIMIT_MS = 100;

/** Indexes added for the dashboard (prisma/migrations/20261210150000_dashboard_indexes). */
const INDEXES: Record<string, string> = {
  CrashReport_campaignId_bucketId_idx: `CREATE INDEX "CrashReport_campaignId_bucketId_idx" ON "CrashReport"("campaignId", "bucketId")`,
  Job_campaignId_status_finishedAt_idx: `CREATE INDEX "Job_campaignId_status_finishedAt_idx" ON "Job"("campaignId", "status", "finishedAt")`,
  Job_finishedAt_idx: `CREATE INDEX "Job_finishedAt_idx" ON "Job"("finishedAt")`,
  CrashBucket_count_id_idx: `CREATE INDEX "CrashBucket_count_id_idx" ON "CrashBucket"("count", "id")`,
};

async function main() {
  const t0 = Date.now();
  const db = await createTestDb("postgresql://postgres@127.0.0.1:5432/fuzzfarm_bench");
  const prefix = `ffbench-web-${randomBytes(4).toString("hex")}`;
  const queues = openQueues({ url: "redis://127.0.0.1:6379", prefix });
  const dataDir = mkdtempSync(join(tmpdir(), "ff-bench-web-"));
  const sql = (q: string, ...p: unknown[]) => db.prisma.$executeRawUnsafe(q, ...p);
  try {
    // ---------------------------------------------------------------- seed
    await sql(`INSERT INTO "Target" (id, name, engine, path, version) SELECT 't' || i, 'target-' || i, 'node', '/srv/t' || i || '.js', 'v' || i FROM generate_series(0, 4) i`);
    await sql(`INSERT INTO "Campaign" (id, "targetId", engine, status, config, deadline, "startedAt", execs, "jobsDone", covered, "coverageTotal", novelty, "corpusSize")
      SELECT 'c' || i, 't' || (i % 5), 'node', CASE WHEN i < 3 THEN 'running' ELSE 'completed' END, '{}'::jsonb, now() + interval '1 day', now() - interval '6 hours',
             1000000 * (i + 1), 2000, 500 + i, 1000, 50, 300 FROM generate_series(0, 19) i`);
    // Buckets: 5 targets; counts skewed (a few huge buckets, a long tail).
    await sql(`INSERT INTO "CrashBucket" (id, "targetId", signature, kind, title, frames, count, status, "firstSeen", "lastSeen", "firstSeenVersion", "lastSeenVersion", "reproRuns", "reproHits", "reproLabel", "reproCommand", reproducer)
      SELECT 'b' || i, 't' || (i % 5), 'uncaught|site-' || i || '|frame@lib.js', (ARRAY['uncaught','rejection','exit','hang','oracle'])[1 + i % 5],
             'TypeError: cannot read properties of undefined (reading ''x' || i || ''') in handler' || (i % 97),
             '[{"fn":"handler","file":"/srv/lib.js","line":12},{"fn":"onClose","file":"/srv/net.js","line":40}]'::jsonb,
             0, (ARRAY['new','confirmed','fixed','regressed','ignored'])[1 + (i / 7) % 5], now() - interval '6 hours' + (i || ' seconds')::interval, now() - ((i % 3600) || ' seconds')::interval,
             'v' || (i % 5), 'v' || (i % 5), i % 11, i % 7, 'flaky', 'npx fuzzfarm repro b' || i, '\\x46555a5a'::bytea
      FROM generate_series(0, ${BUCKETS - 1}) i`);
    // Reports: campaign c0 gets half of them; bucket chosen by a skewed distribution.
    await sql(`INSERT INTO "CrashReport" (id, "bucketId", "campaignId", "jobId", ordinal, kind, message, stack, signature, "targetVersion", artifact, triage, "createdAt", hits)
      SELECT 'r' || i, 'b' || b, 'c' || CASE WHEN i % 2 = 0 THEN 0 ELSE (i % 20) END, 'j' || i, 0, 'uncaught',
             'TypeError: cannot read properties of undefined (reading ''x' || b || ''')',
             'TypeError: cannot read properties of undefined\n' || repeat('    at handler (/srv/lib.js:12:7)\n    at Socket.onClose (/srv/net.js:40:3)\n', 8),
             'uncaught|site-' || b || '|frame@lib.js', 'v' || (b % 5),
             '{"reproducer":{"engine":"node","seed":1,"options":{"strategy":"delay"},"trace":{"events":[{"id":"timeout@lib.js:3#0.0","seq":0,"held":true,"t":5}]}},"detail":{}}'::jsonb,
             '{"rule":"exact"}'::jsonb, now() - interval '6 hours' + (i / 5 || ' seconds')::interval, 1
      FROM (SELECT i, (floor(${BUCKETS} * power(random(), 2)))::int AS b FROM generate_series(0, ${REPORTS - 1}) i) x`);
    await sql(`UPDATE "CrashBucket" b SET count = s.n FROM (SELECT "bucketId", count(*) AS n FROM "CrashReport" GROUP BY 1) s WHERE s."bucketId" = b.id`);
    await sql(`INSERT INTO "Job" (id, "campaignId", kind, status, payload, "workerId", "queuedAt", "finishedAt", execs, "busyMs")
      SELECT 'c0-' || i, 'c0', 'fuzz', 'done', '{}'::jsonb, 'w' || (i % 8), now() - interval '6 hours' + (i || ' seconds')::interval,
             now() - interval '6 hours' + (i + 5 || ' seconds')::interval, 5000, 4800 FROM generate_series(0, ${SAMPLES - 1}) i`);
    await sql(`INSERT INTO "CoverageSample" ("campaignId", at, execs, covered, "coverageTotal", novelty, "corpusSize", buckets, "strategyYield")
      SELECT 'c0', now() - interval '6 hours' + (i || ' seconds')::interval, 5000 * i, 100 + floor(sqrt(i)), 1000, floor(ln(i + 1) * 10), 10 + i / 100, i / 10,
             jsonb_build_object((ARRAY['shuffle','delay','demux','pct'])[1 + i % 4], jsonb_build_object('execs', 5000, 'newFeatures', i % 3, 'findings', i % 2))
      FROM generate_series(1, ${SAMPLES}) i`);
    // What autovacuum does to freshly inserted tables (visibility map for index-only scans, statistics).
    await sql(`VACUUM ANALYZE`);
    const seeded = Date.now() - t0;

    const app = await buildApp({ db, queues, redisUrl: "redis://127.0.0.1:6379", prefix, adminToken: "bench-admin-token-0123456789", dataDir });
    const big = ((await db.prisma.$queryRawUnsafe(`SELECT id FROM "CrashBucket" ORDER BY count DESC LIMIT 1`)) as { id: string }[])[0]!.id;
    const cases: [string, string][] = [
      ["bucket list page (default: count desc)", "/buckets"],
      ["bucket list page, sort lastSeen asc, page 40", "/buckets?sort=lastSeen&order=asc&page=40"],
      ["bucket list page, sort repro rate", "/buckets?sort=reproRate&order=desc"],
      ["bucket list page, status=new kind=hang", "/buckets?status=new&kind=hang"],
      ["bucket list page, search", "/buckets?q=handler42"],
      ["bucket list page, one campaign", "/buckets?campaignId=c0"],
      ["bucket list API (limit 50)", "/api/buckets"],
      ["bucket list API, campaign c7", "/api/buckets?campaignId=c7&sort=lastSeen"],
      ["campaign page (c0: 50k reports, 20k samples)", "/campaigns/c0"],
      ["campaign page, log scale", "/campaigns/c0?scale=log"],
      ["campaign API series", "/api/campaigns/c0/series"],
      ["campaign API strategies", "/api/campaigns/c0/strategies"],
      ["campaign API throughput", "/api/campaigns/c0/throughput"],
      ["overview page (20 campaigns)", "/"],
      ["bucket detail (largest bucket)", `/buckets/${big}`],
      ["metrics", "/metrics"],
    ];

    const measure = async () => {
      const out = new Map<string, { p50: number; p95: number; max: number }>();
      for (const [name, url] of cases) {
        for (let i = 0; i < 5; i++) await app.inject({ url });
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const s = process.hrtime.bigint();
          const r = await app.inject({ url });
          times.push(Number(process.hrtime.bigint() - s) / 1e6);
          if (r.statusCode !== 200) throw new Error(`${url}: HTTP ${r.statusCode} ${r.body.slice(0, 200)}`);
        }
        times.sort((a, b) => a - b);
        const q = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!;
        out.set(name, { p50: q(0.5), p95: q(0.95), max: times[times.length - 1]! });
      }
      return out;
    };

    const present = ((await db.prisma.$queryRawUnsafe(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()`)) as { indexname: string }[]).map((r) => r.indexname);
    const ours = Object.keys(INDEXES).filter((n) => present.includes(n));
    for (const n of ours) await sql(`DROP INDEX "${n}"`);
    await sql(`VACUUM ANALYZE`);
    const before = await measure();
    for (const n of ours) await sql(INDEXES[n]!);
    await sql(`VACUUM ANALYZE`);
    const after = await measure();
    await app.close();

    const counts = ((await db.prisma.$queryRawUnsafe(`SELECT (SELECT count(*) FROM "CrashReport") AS r, (SELECT count(*) FROM "CrashBucket") AS b`)) as { r: bigint; b: bigint }[])[0]!;
    console.log(`web-buckets: ${counts.r} crash reports, ${counts.b} buckets, ${SAMPLES} coverage samples + jobs (seeded in ${(seeded / 1000).toFixed(1)} s); ${RUNS} requests per case, inject() server time in ms`);
    console.log(`baseline = without the dashboard indexes (${ours.length ? ours.join(", ") : "none found: migration not applied"})\n`);
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(`${pad("case", 48)} ${pad("p50", 8)} ${pad("p95", 8)} ${pad("max", 8)} ${pad("base p95", 9)} ratio  <100ms`);
    let fail = false;
    for (const [name] of cases) {
      const a = after.get(name)!;
      const b = before.get(name)!;
      const gated = /bucket list|campaign page/.test(name);
      const ok = a.p95 < LIMIT_MS;
      if (gated && !ok) fail = true;
      console.log(`${pad(name, 48)} ${pad(a.p50.toFixed(1), 8)} ${pad(a.p95.toFixed(1), 8)} ${pad(a.max.toFixed(1), 8)} ${pad(b.p95.toFixed(1), 9)} ${pad((b.p95 / a.p95).toFixed(2) + "x", 6)} ${gated ? (ok ? "yes" : "NO") : "(info)"}`);
    }
    console.log(`\n${fail ? "FAIL" : "PASS"}: bucket list and campaign page p95 ${fail ? "exceed" : "under"} ${LIMIT_MS} ms`);
    process.exitCode = fail ? 1 : 0;
  } finally {
    const keys = await queues.connection.keys(`${prefix}:*`);
    if (keys.length) await queues.connection.del(...keys);
    await queues.close();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
