// Replays for `fuzzfarm ci`: every candidate bucket's reproducer runs on the
// head checkout and on the base worktree, locally with the bucket's engine.
// A replay "hits" when its crash state, with paths taken relative to the
// side's own root, is the bucket's by triage's one same-bug rule
// (matchesBucket), so the same bug in two checkouts compares equal.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { CRASH_KINDS, Reproducer, type Engine, type EngineName, type Finding, type Outcome } from "@fuzzfarm/protocol";
import { checkOptimizers, jobSandbox, loadEngines, type ResolvedSandbox } from "@fuzzfarm/worker";
import { crashState, matchesBucket, stateAsBucket, type CrashState } from "@fuzzfarm/triage";
import { classify, type PullRequestBucket, type SourceLocation } from "@fuzzfarm/github";

/** A bucket as stored by the farm, with its first report. */
export interface CandidateBucket {
  id: string;
  kind: string;
  title: string;
  report: { message: string; stack: string; artifact: unknown };
  /** Seen by an earlier run (the state directory): pre-existing when the base cannot tell. */
  known?: boolean;
}

export interface Side {
  /** Repository root of this checkout. */
  root: string;
  /** The target file in this checkout; null when the target does not exist there. */
  target: string | null;
  /** Why this checkout cannot run its target (its dependencies could not be installed); its replays are skipped. */
  unavailable?: string;
}

/** The finding a stored report describes (what the worker sent), to recompute its state under another root. */
function findingOfReport(kind: string, r: CandidateBucket["report"], repro: Reproducer): Finding {
  const detail = ((r.artifact as { detail?: unknown }).detail ?? {}) as Record<string, unknown>;
  const base = { message: r.message, stack: r.stack, reproducer: repro, detail };
  if ((CRASH_KINDS as readonly string[]).includes(kind)) return { kind: "crash", crashKind: kind as (typeof CRASH_KINDS)[number], ...base };
  if (kind === "hang") return { kind: "hang", timeoutMs: Number(detail.timeoutMs ?? 0), ...base };
  return { kind: "oracle", oracle: String(detail.oracle ?? ""), ...base };
}

/** A stored bucket's state under `root` (its report's paths relative to that root), with its reproducer; null without one. */
export function referenceState(b: Pick<CandidateBucket, "kind" | "report">, root: string): { state: CrashState; repro: Reproducer } | null {
  const parsed = Reproducer.safeParse((b.report.artifact as { reproducer?: unknown }).reproducer);
  if (!parsed.success) return null;
  return { state: crashState(findingOfReport(b.kind, b.report, parsed.data), { rootDir: root }), repro: parsed.data };
}

/** The run's state when it is the bucket's bug (triage's one rule, each side's paths relative to its own root). */
export function sameBug(o: Outcome, side: Pick<Side, "root">, ref: CrashState): CrashState | null {
  if (o.kind === "ok") return null;
  const s = crashState(o, { rootDir: side.root });
  return matchesBucket(s, stateAsBucket(ref, "ref")) ? s : null;
}

/** The top frame of a state as a location inside the repository, when it lies there. */
export function locationIn(state: CrashState, root: string): SourceLocation | undefined {
  const top = state.frames.find((f) => f.lang === "js" && f.line !== null);
  if (!top || top.file.startsWith("<") || top.file.startsWith("..") || top.file.startsWith("/") || top.file.includes("node_modules")) return undefined;
  const path = relative(root, join(root, top.file)).split(sep).join("/");
  return { path, line: top.line!, ...(top.col ? { column: top.col } : {}) };
}

interface SideResult {
  runs: number;
  hits: number;
  state: CrashState | null;
  message: string | null;
  /** Why the target could not run on this side (it did not load): the side has no verdict. */
  error?: string;
}

/** How the replays run the pull request's code: in this sandbox, with these paths hidden (ci/sandbox.ts). */
export interface ReplayIsolation {
  sandbox: ResolvedSandbox;
  /** What the "fs" sandbox covers: the data directory (job key), secret files. */
  hide: string[];
  /** What both sides must read besides their own checkout (the head's node_modules the base borrows). */
  readable: string[];
}

async function replaySide(engine: Engine, repro: Reproducer, side: Side, ref: CrashState, runs: number, iso: ReplayIsolation): Promise<SideResult> {
  if (!side.target) return { runs: 0, hits: 0, state: null, message: null };
  if (side.unavailable) return { runs: 0, hits: 0, state: null, message: null, error: side.unavailable };
  const workDir = await mkdtemp(join(tmpdir(), "ffci-replay-"));
  const sandbox = jobSandbox(iso.sandbox, workDir, { readable: [side.root, side.target, ...iso.readable], hide: iso.hide });
  let hits = 0;
  let state: CrashState | null = null;
  let message: string | null = null;
  try {
    for (let i = 0; i < runs; i++) {
      let o: Outcome;
      try {
        o = await engine.reproduce({ path: side.target }, repro, { signal: AbortSignal.timeout(120_000), workDir, sandbox });
      } catch (e) {
        // a target that does not load on this side (a missing dependency, a syntax error) is that side's answer
        return { runs: 0, hits: 0, state: null, message: null, error: (e as Error).message.split("\n")[0]! };
      }
      const s = sameBug(o, side, ref);
      if (s) {
        hits++;
        state ??= s;
        message ??= o.kind === "ok" ? null : o.message;
      }
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return { runs, hits, state, message };
}

export interface ReplayOptions {
  head: Side;
  base: Side;
  /** Root the farm ran the campaign under (reports' paths are relative to it). */
  reportRoot: string;
  /** Replays per side. */
  runs: number;
  /** Reproduction command of a bucket. */
  reproduceCommand: (bucketId: string) => string;
  log: (line: string) => void;
  /** Optimizers a stored reproducer may run here (FUZZFARM_ALLOWED_OPTIMIZERS); default none. */
  allowedOptimizers?: string[];
  isolation: ReplayIsolation;
}

/** Replay each candidate on both sides and classify it. */
export async function replayAndClassify(candidates: CandidateBucket[], o: ReplayOptions): Promise<PullRequestBucket[]> {
  const engines = new Map<string, Engine>();
  const out: PullRequestBucket[] = [];
  for (const b of candidates) {
    const parsed = Reproducer.safeParse((b.report.artifact as { reproducer?: unknown }).reproducer);
    if (!parsed.success) {
      o.log(`bucket ${b.id}: no reproducer stored, skipped`);
      continue;
    }
    const repro = parsed.data;
    // A stored reproducer is data from the farm: an optimizer in it runs only when this machine's operator listed it.
    if (repro.engine === "wasm") {
      try {
        checkOptimizers(repro.options, o.allowedOptimizers, "the allowed optimizers", "FF_ERR_FORBIDDEN");
      } catch (e) {
        o.log(`bucket ${b.id}: not replayed: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
    }
    let engine = engines.get(repro.engine);
    if (!engine) {
      const { engines: loaded, missing } = await loadEngines([repro.engine as EngineName]);
      if (!loaded[0]) {
        o.log(`bucket ${b.id}: engine ${repro.engine} unavailable (${missing[0]?.why}), skipped`);
        continue;
      }
      engine = loaded[0];
      engines.set(repro.engine, engine);
    }
    const ref = crashState(findingOfReport(b.kind, b.report, repro), { rootDir: o.reportRoot });
    const [head, base] = await Promise.all([replaySide(engine, repro, o.head, ref, o.runs, o.isolation), replaySide(engine, repro, o.base, ref, o.runs, o.isolation)]);
    // Without a verdict on the base, a bug the head has is pre-existing only when an earlier run saw it.
    const cls = base.error && head.hits > 0 ? (b.known ? "pre-existing" : "new") : classify(head, base);
    for (const [name, side] of [["head", head], ["base", base]] as const) if (side.error) o.log(`bucket ${b.id}: no verdict on the ${name}: ${side.error}`);
    const shown = head.state ?? base.state;
    const where = head.state ? locationIn(head.state, o.head.root) : base.state ? locationIn(base.state, o.base.root) : undefined;
    o.log(`bucket ${b.id}: head ${head.hits}/${head.runs}, base ${base.hits}/${base.runs} -> ${cls}  ${shown?.title ?? b.title}`);
    out.push({
      id: b.id,
      kind: b.kind,
      title: shown?.title ?? b.title,
      signature: shown?.signature ?? ref.signature,
      message: head.message ?? base.message ?? b.report.message,
      class: cls,
      head: { runs: head.runs, hits: head.hits },
      base: { runs: base.runs, hits: base.hits },
      ...(where ? { location: where } : {}),
      reproduce: o.reproduceCommand(b.id),
    });
  }
  return out;
}
