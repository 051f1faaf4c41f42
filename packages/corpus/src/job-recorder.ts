// What one fuzzing job found, as every engine reports it: executions, the
// features seen (first-seen order), corpus candidates, findings kept once per
// bug, per-strategy yield and progress, then the job's result. The engines
// (input, node, wasm) differ in how they run a target and in what makes two
// findings the same bug (the key they pass); the bookkeeping is this one.
//
//   exec ──> execs, yield[by].execs         features ──> fresh ones, yield[by].newFeatures
//   candidate ──> corpus (first maxCandidates)
//   claim(key) ──> true once per bug ──> keep(key, finding)   (the engine confirms or minimizes in between)
//   result() ──> EngineResultInput
import type { CorpusCandidate, EngineResultInput, EngineRunContext, Finding, StrategyYield } from "@fuzzfarm/protocol";

/** Why a job failed, as its result carries it. */
type JobError = NonNullable<EngineResultInput["error"]>;

/** The least a corpus candidate holds; each engine records its own candidate type (its seed strategy). */
export interface CandidateLike {
  data: string;
  features: string[];
}

/** What `result()` returns: an engine's job result (EngineResultInput) with the engine's candidates. */
export interface JobRecord<C extends CandidateLike = CorpusCandidate> {
  execs: number;
  busyMs: number;
  features?: string[];
  featureTotal?: number;
  coverage?: Record<string, unknown>;
  corpus?: C[];
  findings?: Finding[];
  strategyYield?: StrategyYield;
  error?: JobError;
}

export interface JobRecorderOptions {
  /** Clock of busyMs and progress throttling, in ms. Default: `performance.now`. */
  clock?: () => number;
  /** When the job started, on `clock`. Default: `clock()` at construction. */
  startedAt?: number;
  /** Progress callback (the run context's `onProgress`). Default: none. */
  onProgress?: EngineRunContext["onProgress"];
  /** Least time between two progress reports, in ms. Default: 0 (every `progress()` call reports). */
  progressEveryMs?: number;
  /** Most corpus candidates kept; later ones are dropped. Default: 10 000 (the protocol's limit). */
  maxCandidates?: number;
  /** Most distinct findings kept; later new bugs are dropped. Default: 200. */
  maxFindings?: number;
}

/** A count in the per-strategy (or per-mutator) yield. */
export type YieldField = "execs" | "newFeatures" | "findings";

interface Slot {
  finding: Finding | null;
  /** Occurrences, when the engine counts them (detail.hits of the kept finding). */
  hits: number | null;
}

/** `C`: the engine's corpus candidate type (default: protocol's CorpusCandidate). */
export class JobRecorder<C extends CandidateLike = CorpusCandidate> {
  private readonly clock: () => number;
  /** When the job started, on the recorder's clock. */
  readonly startedAt: number;
  private readonly seen = new Set<string>();
  private readonly candidates: C[] = [];
  private readonly slots = new Map<string, Slot>();
  private readonly yields: StrategyYield = {};
  private readonly maxCandidates: number;
  private readonly maxFindings: number;
  private lastProgress = -Infinity;
  private execCount = 0;

  constructor(private readonly opts: JobRecorderOptions = {}) {
    this.clock = opts.clock ?? (() => performance.now());
    this.startedAt = opts.startedAt ?? this.clock();
    this.maxCandidates = opts.maxCandidates ?? 10_000;
    this.maxFindings = opts.maxFindings ?? 200;
  }

  /** Executions so far. */
  get execs(): number {
    return this.execCount;
  }

  /** The features seen so far, in first-seen order. */
  get features(): ReadonlySet<string> {
    return this.seen;
  }

  /** Distinct bugs claimed so far. */
  get findingCount(): number {
    return this.slots.size;
  }

  /** Count `n` executions, credited to each distinct name in `by` (strategies, mutators, engines). */
  exec(n = 1, by: string | readonly string[] = []): void {
    this.execCount += n;
    this.credit(by, "execs", n);
  }

  /** Add `n` to `field` of each distinct name in `by`, without counting executions. */
  credit(by: string | readonly string[], field: YieldField, n = 1): void {
    if (typeof by === "string") {
      this.yieldOf(by)[field] += n;
      return;
    }
    for (let k = 0; k < by.length; k++) {
      const name = by[k]!;
      if (by.indexOf(name) === k) this.yieldOf(name)[field] += n;
    }
  }

  /** Record features; returns the ones not seen before, whose number is credited as newFeatures to `by`. */
  addFeatures(keys: Iterable<string>, by: string | readonly string[] = []): string[] {
    const fresh: string[] = [];
    for (const k of keys) {
      if (this.seen.has(k)) continue;
      this.seen.add(k);
      fresh.push(k);
    }
    if (fresh.length > 0) this.credit(by, "newFeatures", fresh.length);
    return fresh;
  }

  /** Offer a corpus candidate; false when the job already keeps `maxCandidates`. */
  candidate(c: C): boolean {
    if (this.candidates.length >= this.maxCandidates) return false;
    this.candidates.push(c);
    return true;
  }

  /** Corpus candidates offered so far. */
  get candidateCount(): number {
    return this.candidates.length;
  }

  /**
   * One occurrence of the bug `key` (equal keys: the same bug, by the engine's rule). True the first
   * time a key is seen while fewer than `maxFindings` are kept: the caller then makes its finding and
   * hands it to `keep`. With `hits`, occurrences are counted into the kept finding's detail.hits.
   */
  claim(key: string, hits?: number): boolean {
    const slot = this.slots.get(key);
    if (slot) {
      if (hits !== undefined) slot.hits = (slot.hits ?? 0) + hits;
      return false;
    }
    if (this.slots.size >= this.maxFindings) return false;
    this.slots.set(key, { finding: null, hits: hits ?? null });
    return true;
  }

  /** The finding of a bug `claim` returned true for. Findings are listed in the order their keys were claimed. */
  keep(key: string, f: Finding): void {
    const slot = this.slots.get(key);
    if (!slot) throw new RangeError(`finding '${key}' was not claimed`);
    slot.finding = f;
  }

  /** Report progress through `onProgress` unless the last report is younger than `progressEveryMs`. */
  progress(): void {
    if (!this.opts.onProgress) return;
    const now = this.clock();
    if (now - this.lastProgress < (this.opts.progressEveryMs ?? 0)) return;
    this.lastProgress = now;
    this.opts.onProgress({ execs: this.execCount, features: this.seen.size });
  }

  /** Milliseconds since the job started. */
  busyMs(): number {
    return this.clock() - this.startedAt;
  }

  /** The result of a job that could not run (its target does not load): executions and time only. */
  failed(error: JobError): JobRecord<C> {
    return { execs: this.execCount, busyMs: this.busyMs(), error };
  }

  /**
   * The job's result. `featureTotal` defaults to the number of features seen; `coverage` and `error`
   * are passed through (a job may fail after it found something).
   */
  result(extra: { featureTotal?: number; coverage?: Record<string, unknown>; error?: JobError } = {}): JobRecord<C> {
    const findings: Finding[] = [];
    for (const s of this.slots.values()) {
      if (!s.finding) continue;
      findings.push(s.hits === null ? s.finding : { ...s.finding, detail: { ...s.finding.detail, hits: s.hits } });
    }
    return {
      execs: this.execCount,
      busyMs: this.busyMs(),
      features: [...this.seen],
      featureTotal: extra.featureTotal ?? this.seen.size,
      ...(extra.coverage ? { coverage: extra.coverage } : {}),
      corpus: this.candidates,
      findings,
      strategyYield: this.yields,
      ...(extra.error ? { error: extra.error } : {}),
    };
  }

  private yieldOf(name: string): StrategyYield[string] {
    return (this.yields[name] ??= { execs: 0, newFeatures: 0, findings: 0 });
  }
}
