// The real-compiler bug benchmark. For each bug of bugs.ts:
//   1. install the affected and the fixed binaryen release from npm (install.ts);
//   2. confirm the bug on its hand-written module (confirm.ts);
//   3. run a farm campaign of the generator (`fuzzfarm fuzz opt --engine wasm
//      -o optimizer=<release>`) with the affected release, stopping at the first
//      bucket, and one with the fixed release for the same time;
//      Each bucket of a fixed-release campaign is attributed (attribute.ts): which
//      bug of bugs.ts its program is, by the releases that get it wrong and right;
//   4. per release, which of Binaryen's passes change the campaign's programs
//      (each pass run alone on the first programs of the generator).
// Prints a table: bug, confirmed, affected: found? time to find, fixed: buckets.
// --fixed-only skips the affected campaigns (step 3's first half) and runs one
// fixed-release campaign per distinct (fixed release, generator configuration):
// bugs that share both (98.0.0-nightly/98.0.0 -> 99.0.0) share that campaign.
//   node --import tsx bench/wasm-real-bugs/run.ts [--only id[,id]] [--time 600] [--fixed-time S] [--no-fixed | --fixed-only] [--passes N] [--job-seconds 60]
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { emitWat, encodeWat, generate, parseGenConfig, passEffects } from "@fuzzfarm/engine-wasm";
import { attribute, attributionLine, type Attribution } from "./attribute";
import { BUGS, type RealBug } from "./bugs";
import { confirm } from "./confirm";
import { installReleases, versionDir } from "./install";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const arg = (k: string, d: string): string => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1]! : d);
const only = arg("--only", "");
const time = Number(arg("--time", "600"));
const fixedTime = Number(arg("--fixed-time", String(time)));
const passPrograms = Number(arg("--passes", "20"));
const fixedOnly = process.argv.includes("--fixed-only");
/** Shorter jobs report a finding sooner (a job returns its findings when it ends). */
const jobSeconds = Number(arg("--job-seconds", "60"));

interface Campaign { campaignId?: string; seconds: number; buckets: { id: string; kind: string; title: string; count: number }[]; executions: number; error?: string }

/** One `fuzzfarm fuzz` campaign of the generator with `version` as the optimizer under test. */
export function campaign(bug: RealBug, version: string, seconds: number, stopOnFirst: boolean): Promise<Campaign> {
  const args = [join(root, "apps/cli/bin/fuzzfarm.mjs"), "fuzz", "opt", "--engine", "wasm", "--time", `${seconds}s`, "--json", "--maintenance-wait", "0s", "--job-seconds", `${jobSeconds}s`,
    "-o", `optimizer=${versionDir(version)}`, "-o", "runsPerProgram=2",
    ...Object.entries(bug.generator).flatMap(([k, v]) => ["-o", `generator.${k}=${JSON.stringify(v)}`]),
    ...(stopOnFirst ? ["--stop-on-crash"] : [])];
  return new Promise((res) => {
    execFile("nice", ["-n", "10", process.execPath, ...args], { cwd: root, maxBuffer: 64 << 20, timeout: (seconds + 600) * 1000 }, (err, stdout, stderr) => {
      const line = stdout.trim().split("\n").filter((l) => l.startsWith("{")).pop();
      if (!line) return res({ seconds: 0, buckets: [], executions: 0, error: (stderr || String(err)).split("\n").slice(-3).join(" ") });
      const j = JSON.parse(line);
      res({ campaignId: j.campaignId, seconds: j.seconds, executions: j.executions, buckets: j.buckets.map((b: any) => ({ id: b.id, kind: b.kind, title: b.title, count: b.count })) });
    });
  });
}

/** Passes of Binaryen's default function pipeline whose effect on generated programs is measured. */
export const PASSES = [
  "dce", "remove-unused-brs", "remove-unused-names", "optimize-instructions", "pick-load-signs", "precompute", "precompute-propagate",
  "code-pushing", "simplify-locals-nostructure", "vacuum",
  "reorder-locals", "coalesce-locals", "simplify-locals", "merge-blocks", "rse", "licm", "merge-locals",
  "code-folding", "inlining-optimizing", "duplicate-function-elimination", "memory-packing", "simplify-globals-optimizing", "avoid-reinterprets",
];

async function passCoverage(version: string, bug: RealBug): Promise<Record<string, number>> {
  const cfg = parseGenConfig({ preset: "opt", ...bug.generator });
  const changed: Record<string, number> = {};
  for (let s = 0; s < passPrograms; s++) {
    const bytes = await encodeWat(emitWat(generate(s, cfg)));
    for (const [pass, did] of Object.entries(await passEffects(bytes, PASSES, { path: versionDir(version), cmd: null }))) changed[pass] = (changed[pass] ?? 0) + (did ? 1 : 0);
  }
  return changed;
}

const bugs = BUGS.filter((b) => !only || only.split(",").includes(b.id));
installReleases([...new Set(bugs.flatMap((b) => [b.affected, b.fixed]))]); // confirm() uses both
const rows: string[] = [];
const report: unknown[] = [];
/** Fixed-release campaigns already run, by release and generator configuration (--fixed-only shares them). */
const fixedRuns = new Map<string, Campaign & { attributed: Attribution[] }>();
for (const b of bugs) {
  const c = await confirm(b);
  let aff: Campaign | null = null;
  let found: Campaign["buckets"] = [];
  if (!fixedOnly) {
    process.stderr.write(`${b.id}: hand-written module: ${c.confirmed ? "confirmed" : "NOT confirmed"}; campaign on binaryen ${b.affected} (up to ${time} s)\n`);
    aff = await campaign(b, b.affected, time, true);
    found = aff.buckets.filter((x) => x.kind === "oracle");
    process.stderr.write(`  affected: ${found.length ? `found in ${aff.seconds} s: ${found.map((x) => x.title).join("; ")}` : `not found (${aff.error ?? `${aff.executions} executions`})`}\n`);
  } else process.stderr.write(`${b.id}: hand-written module: ${c.confirmed ? "confirmed" : "NOT confirmed"}; fixed release only\n`);
  const key = `${b.fixed} ${JSON.stringify(b.generator)}`;
  let fix: (Campaign & { attributed: Attribution[] }) | null = null;
  let shared = false;
  if (!process.argv.includes("--no-fixed")) {
    shared = fixedOnly && fixedRuns.has(key);
    if (shared) fix = fixedRuns.get(key)!;
    else {
      const run = await campaign(b, b.fixed, fixedTime, false);
      fix = { ...run, attributed: run.buckets.length && run.campaignId ? await attribute({ campaignId: run.campaignId }) : [] };
    }
    fixedRuns.set(key, fix as Campaign & { attributed: Attribution[] });
    process.stderr.write(`  fixed ${b.fixed}${shared ? " (the campaign above)" : ""}: ${fix.buckets.length} buckets in ${fix.seconds} s, ${fix.executions} executions${fix.error ? ` (error: ${fix.error})` : ""}${fix.buckets.length ? `: ${fix.buckets.map((x) => x.title).join("; ")}` : ""}\n`);
  }
  if (fix && !shared) for (const a of fix.attributed) process.stderr.write(`    ${attributionLine(a)}\n`);
  const covVersion = fixedOnly ? b.fixed : b.affected;
  const cov = await passCoverage(covVersion, b);
  const covText = Object.entries(cov).filter(([, n]) => n > 0).map(([p, n]) => `${p} ${n}/${passPrograms}`).join(", ");
  process.stderr.write(`  passes that changed the first ${passPrograms} programs (binaryen ${covVersion}): ${covText}\n`);
  const foundText = aff ? (found.length ? `yes, ${aff.seconds} s` : "no") : "-";
  // Fixed-release buckets by the bug they are: this row's own bug would mean its fix is incomplete.
  const byBug = (fix?.attributed ?? []).reduce<Record<string, number>>((m, a) => ((m[a.bugs.join("+") || "no known bug"] = (m[a.bugs.join("+") || "no known bug"] ?? 0) + 1), m), {});
  if (fix && fix.buckets.length > fix.attributed.length) byBug["not a generated-program oracle bucket"] = fix.buckets.length - fix.attributed.length;
  const fixText = fix ? `${fix.buckets.length} in ${fix.seconds} s, ${fix.executions} execs${shared ? " (same)" : ""}${Object.keys(byBug).length ? ` (${Object.entries(byBug).map(([k, n]) => `${n} ${k}`).join(", ")})` : ""}` : "-";
  rows.push(`${b.id.padEnd(24)} ${(c.confirmed ? "yes" : "NO").padEnd(9)} ${b.affected.padEnd(24)} ${foundText.padEnd(14)} ${b.fixed.padEnd(12)} ${fixText}`);
  report.push({ bug: b.id, affected: b.affected, fixed: b.fixed, confirmed: c.confirmed, campaign: { affected: aff, fixed: fix, fixedShared: shared }, passes: { version: covVersion, changed: cov } });
}
mkdirSync(join(here, "out"), { recursive: true });
writeFileSync(join(here, "out", `run-${Date.now()}.json`), JSON.stringify(report, null, 2));
console.log("bug                      confirmed affected                 found          fixed        fixed: buckets");
for (const r of rows) console.log(r);
