// Building a campaign's istanbul HTML report with istanbul-lib-report and
// istanbul-reports. The coverage map comes from worker results, so its file
// names are untrusted: before reporting, every key is normalized to a plain
// path ("/"-separated segments of [A-Za-z0-9._@+~ -], no "." or "..") so no
// markup reaches istanbul's breadcrumbs (which it does not escape) and no
// output file lands outside the report directory. Sources are read only from
// the target's repository (the nearest folder above Target.path holding
// `.git`, else Target.path's folder), on their real path (no symlink out),
// and never from the farm's data directory (job key, Redis password), a
// `.git` or a `.fuzzfarm` folder, wherever those lie: a target chooses the
// file names in its coverage map, so a fake entry for `.fuzzfarm/job-key`
// would otherwise put the key on the coverage page. Anything else shows a
// one-line placeholder and is not read. Control characters are stripped from sources before
// istanbul sees them: its annotator marks tags with \x01 and \x02 and turns
// them into "<" and ">" after escaping, so a source holding those bytes
// would otherwise inject markup into the report.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import libCoverage from "istanbul-lib-coverage";
import libReport from "istanbul-lib-report";
import reports from "istanbul-reports";

const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export interface SafeCoverage {
  /** Coverage map data keyed by the normalized path (file coverage `path` rewritten to match). */
  data: libCoverage.CoverageMapData;
  /** Normalized path -> original key. */
  original: Map<string, string>;
}

export function safeKey(path: string): string {
  const segs = path
    .split(/[\\/]+/)
    .map((s) => s.replace(/[^A-Za-z0-9._@+~ -]/g, "_").trim())
    .filter((s) => s !== "" && !/^\.+$/.test(s));
  return "/" + (segs.length ? segs.join("/") : "_");
}

const isFileCoverage = (v: unknown): v is Record<string, unknown> => {
  if (!v || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return [o.statementMap, o.fnMap, o.branchMap, o.s, o.f, o.b].every((x) => x !== null && typeof x === "object");
};

export function sanitizeCoverage(map: Record<string, unknown>): SafeCoverage {
  const data: libCoverage.CoverageMapData = {};
  const original = new Map<string, string>();
  for (const [key, fc] of Object.entries(map)) {
    if (!isFileCoverage(fc)) continue;
    let k = safeKey(key);
    for (let i = 2; original.has(k); i++) k = `${safeKey(key)}~${i}`;
    original.set(k, key);
    data[k] = { ...(fc as object), path: k } as libCoverage.FileCoverageData;
  }
  return { data, original };
}

const realOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** The repository a target belongs to: the nearest folder above it holding `.git`, else the target's own folder. */
export function targetRoot(targetPath: string): string {
  const start = dirname(resolve(targetPath));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return realOr(dir);
    if (dirname(dir) === dir) return realOr(start);
  }
}

export const NOT_IN_REPOSITORY = "// source not shown: not in the target's repository";

/** Whether `path` is `root` or lies under it (both real, absolute). */
const under = (path: string, root: string) => {
  const r = relative(root, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
};

/**
 * A source finder reading only regular files of the target's repository `root`: a path that is outside it
 * (as written or once symlinks are resolved), in `hidden` (the farm's data directory) or under a `.git` or
 * `.fuzzfarm` folder gets NOT_IN_REPOSITORY and is never opened.
 */
export function sourceFinderFor(root: string, original: Map<string, string>, hidden: readonly string[] = []): (p: string) => string {
  const realRoot = realOr(root);
  // A hidden directory holding the whole repository (App mode's checkouts under the data directory) hides
  // nothing more than the root does: its own files (the key) lie outside the repository.
  const hiddenDirs = [...new Set([...hidden.map((h) => resolve(h)), ...hidden.map(realOr)])].filter((h) => !under(realRoot, h));
  const farmFolder = (p: string) => relative(realRoot, p).split(sep).some((s) => s === ".git" || s === ".fuzzfarm");
  const allowed = (real: string) => under(real, realRoot) && !hiddenDirs.some((h) => under(real, h)) && !farmFolder(real);
  return (p: string) => {
    const key = original.get(p) ?? p;
    const abs = resolve(realRoot, key);
    // refused as written first (nothing resolved), then on the real path (symlinks followed)
    if (farmFolder(abs) || hiddenDirs.some((h) => under(abs, h))) return NOT_IN_REPOSITORY;
    try {
      const real = realpathSync(abs);
      if (!allowed(real)) return NOT_IN_REPOSITORY;
      const st = statSync(real);
      if (!st.isFile()) return "// source not available on the coordinator";
      if (st.size > MAX_SOURCE_BYTES) return "// source not shown: too large";
      return stripControls(readFileSync(real, "utf8"));
    } catch {
      return "// source not available on the coordinator";
    }
  };
}

/** Remove C0 control characters other than tab, newline and carriage return (and DEL). */
export const stripControls = (src: string) => src.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");

export interface ReportBuild {
  /** Directory holding index.html and the per-file pages. */
  dir: string;
}

const building = new Map<string, Promise<ReportBuild>>();

/**
 * Build (or reuse) the report of `campaignId` at coverage version `stamp`
 * under `<reportsRoot>/<campaign>/<stamp>`; older versions are removed.
 * Concurrent callers share one build; the directory appears atomically.
 */
export function ensureReport(
  reportsRoot: string,
  campaignId: string,
  stamp: number,
  load: () => Promise<{ coverageMap: Record<string, unknown>; targetPath: string }>,
  /** Directories whose files are never shown (the farm's data directory). */
  hidden: readonly string[] = [],
): Promise<ReportBuild> {
  const campDir = join(reportsRoot, createHash("sha256").update(campaignId).digest("hex").slice(0, 24));
  const dir = join(campDir, String(stamp));
  if (existsSync(join(dir, "index.html"))) return Promise.resolve({ dir });
  const key = `${campDir}/${stamp}`;
  const running = building.get(key);
  if (running) return running;
  const p = (async () => {
    const { coverageMap, targetPath } = await load();
    const safe = sanitizeCoverage(coverageMap);
    const tmp = join(campDir, `.tmp-${randomBytes(6).toString("hex")}`);
    await mkdir(tmp, { recursive: true });
    const context = libReport.createContext({
      dir: tmp,
      coverageMap: libCoverage.createCoverageMap(safe.data),
      sourceFinder: sourceFinderFor(targetRoot(targetPath), safe.original, hidden),
      defaultSummarizer: "nested",
    });
    reports.create("html", { subdir: "" }).execute(context);
    if (!existsSync(join(tmp, "index.html"))) await emptyIndex(tmp);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    for (const old of await readdir(campDir)) if (old !== String(stamp) && !old.startsWith(".tmp-")) await rm(join(campDir, old), { recursive: true, force: true });
    return { dir };
  })().finally(() => building.delete(key));
  building.set(key, p);
  return p;
}

async function emptyIndex(dir: string) {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(dir, "index.html"), "<!doctype html><title>No coverage</title><p>No coverage recorded for this campaign yet.</p>");
}

/** Per-file summary (lines, statements, functions, branches) computed by istanbul-lib-coverage. */
export function coverageSummary(map: Record<string, unknown>) {
  const safe = sanitizeCoverage(map);
  const cm = libCoverage.createCoverageMap(safe.data);
  const files = cm.files().map((f) => {
    const s = cm.fileCoverageFor(f).toSummary();
    return { file: f, lines: s.lines, statements: s.statements, functions: s.functions, branches: s.branches };
  });
  const t = cm.getCoverageSummary();
  return { total: { lines: t.lines, statements: t.statements, functions: t.functions, branches: t.branches }, files };
}
