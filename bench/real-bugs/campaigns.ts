// Farm campaigns on the real bugs (issue 10: "campaigns find every bug within
// 60 s and file exactly one bucket per bug with a reproduction rate"). Per
// bug, what a user runs: `fuzzfarm fuzz bench/real-bugs/<id>/driver.js
// --engine node --time 60s --json` (the buggy release: the driver's default),
// with the farm of the default configuration (local Redis and PostgreSQL,
// local workers, one per core). Prints, per bug: seconds from the campaign's
// start to its first crash report, the buckets filed (kind and title) and
// each bucket's reproduction count after the maintenance wait. The farm's
// database is a fresh one per bench run (dropped at the end), so buckets of
// earlier runs do not count; `--farm-db` uses the configured one instead.
//   node --import tsx bench/real-bugs/campaigns.ts [--only id,id] [--time 60s] [--maintenance-wait 45s] [--farm-db]
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@fuzzfarm/config";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { installBug, realBugs } from "./lib/bugs";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const TIME = opt("time", "60s");
const WAIT = opt("maintenance-wait", "45s");
const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = fileURLToPath(new URL("../../apps/cli/bin/fuzzfarm.mjs", import.meta.url));

const config = loadConfig({ cwd: root });
const fresh = argv.includes("--farm-db") ? null : await createTestDatabase();
const databaseUrl = fresh?.url ?? config.databaseUrl;
const db = createDb({ url: databaseUrl });
const rows: Record<string, unknown>[] = [];
console.log(`fuzzfarm fuzz <driver> --engine node --time ${TIME} --maintenance-wait ${WAIT}; first = seconds to the first crash report`);
console.log(["bug".padEnd(30), "first".padEnd(8), "buckets".padEnd(8), "reproduced (hits/runs) and title"].join(" "));
for (const b of realBugs(opt("only", ""))) {
  const inst = installBug(b);
  if (!inst.ok) { console.log(`${b.id.padEnd(30)} install failed: ${inst.message}`); continue; }
  const r = spawnSync(process.execPath, [CLI, "fuzz", b.driver, "--engine", "node", "--time", TIME, "--maintenance-wait", WAIT, "--json"], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, FUZZFARM_DATABASE_URL: databaseUrl } });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  let summary: { campaignId: string; buckets: { kind: string; title: string; reproduction: { runs: number; hits: number } }[] };
  try { summary = JSON.parse(line); } catch {
    console.log(`${b.id.padEnd(30)} no summary (exit ${r.status}): ${r.stderr.trim().split("\n").at(-1)}`);
    continue;
  }
  const camp = await db.prisma.campaign.findUniqueOrThrow({ where: { id: summary.campaignId } });
  const firstReport = await db.prisma.crashReport.findFirst({ where: { campaignId: summary.campaignId }, orderBy: { createdAt: "asc" } });
  const first = firstReport ? (firstReport.createdAt.getTime() - camp.startedAt.getTime()) / 1000 : null;
  const buckets = summary.buckets.map((x) => `${x.reproduction.hits}/${x.reproduction.runs} ${x.kind}: ${x.title.slice(0, 70)}`);
  console.log([b.id.padEnd(30), (first === null ? "-" : first.toFixed(1)).padEnd(8), String(summary.buckets.length).padEnd(8), buckets.join(" | ") || "-"].join(" "));
  rows.push({ id: b.id, campaignId: summary.campaignId, firstSeconds: first, buckets: summary.buckets });
}
const found = rows.filter((r) => r.firstSeconds !== null).length;
const oneBucket = rows.filter((r) => (r.buckets as unknown[]).length === 1).length;
console.log(`found ${found}/${rows.length} bugs; exactly one bucket: ${oneBucket}/${rows.length}`);
mkdirSync(new URL("../out/", import.meta.url), { recursive: true });
writeFileSync(new URL("../out/real-bugs-campaigns.json", import.meta.url), JSON.stringify({ date: new Date().toISOString(), time: TIME, rows }, null, 2));
await db.close();
await fresh?.drop();
