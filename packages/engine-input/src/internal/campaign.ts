// One fuzzing job of the input engine. The loop lives here, in the engine's
// process: pick a parent (power schedule), havoc it, send batches of inputs
// to the executor process, and credit the answers (new features make corpus
// entries; errors become deduplicated findings). Two batches are kept in
// flight so the executor never waits for the engine. When the executor dies
// (exit, signal, out of memory, hang) the input it was running is reported
// and a fresh executor continues from the features already known.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Corpus, havocChain, JobRecorder, randomInput } from "@fuzzfarm/corpus";
import { createRng, type Rng } from "@fuzzfarm/rng";
import type { Engine, EngineResultInputFor, EngineRunContext, Finding, JobFor } from "@fuzzfarm/protocol";
import { BatchLedger, type Batch } from "./batches";
import { CoverageBook } from "./coverage-book";
import { Executor, firstMessage, isExit, loadFailure, LOAD_TIMEOUT_MS, type ExitInfo } from "./executor";
import { classifyExit } from "./fatal";
import { dedupeKey } from "./findings";
import type { ChildFinding, ChildMessage } from "./messages";
import { resolveTarget, type ResolvedTarget } from "./target";

const MIN_BATCH = 1;
const MAX_BATCH = 2048;
/** A batch should take about this long in the executor. */
const BATCH_TARGET_MS = 20;
const SNAPSHOT_EVERY_MS = 2000;
const PROGRESS_EVERY_MS = 1000;
const MAX_CANDIDATES = 10_000;
/** Most distinct findings kept per job (the protocol allows 1000). */
const MAX_DISTINCT_FINDINGS = 200;
const MAX_DICTIONARY = 4096;
const STOP_GRACE_MS = 1000;
const LEN_CONTROL = 100;

type Job = JobFor<"input">;
/** A corpus candidate of this engine, as its `run` returns them. */
type Candidate = NonNullable<Awaited<ReturnType<Engine<"input">["run"]>>["corpus"]>[number];

const b64 = (d: Uint8Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString("base64");

export async function runCampaign(job: Job, ctx: EngineRunContext): Promise<EngineResultInputFor<"input">> {
  const rec = new JobRecorder<Candidate>({ onProgress: ctx.onProgress, progressEveryMs: PROGRESS_EVERY_MS, maxCandidates: MAX_CANDIDATES, maxFindings: MAX_DISTINCT_FINDINGS });
  const target = resolveTarget(job.target.path, job.options.root);
  if ("error" in target) return rec.failed(target.error);
  return new Campaign(job, ctx, target, rec).run();
}

class Campaign {
  private readonly opts: Job["options"];
  private readonly rng: Rng;
  private readonly corpus = new Corpus();
  private readonly datas: Uint8Array[] = [];
  /** Corpus id -> id of the job seed it descends from. */
  private readonly rootSeed = new Map<string, string | undefined>();
  private readonly cov = new CoverageBook();
  private readonly ledger = new BatchLedger();
  private readonly dictionary: Uint8Array[] = [];
  private readonly dictionaryKeys = new Set<string>();
  private readonly pendingSeeds: { id: string; data: Uint8Array }[];
  private readonly deadline: number;
  private readonly cacheDir: string;
  private nextSeq = 0;
  private nextBatchId = 0;
  private batchSize = 8;
  private processes = 0;
  private lastSnapshot = 0;
  /** Current length limit of mutations (grows towards maxLen, see growLenCap). */
  private lenCap: number;
  private lastNewCoverageAt = 0;

  constructor(
    private readonly job: Job,
    private readonly ctx: EngineRunContext,
    private readonly target: ResolvedTarget,
    /** Execs, features, candidates, findings and per-mutator yield of the job. */
    private readonly rec: JobRecorder<Candidate>,
  ) {
    this.opts = job.options;
    this.rng = createRng(this.opts.seed);
    this.deadline = rec.startedAt + job.budget.seconds * 1000;
    this.cacheDir = join(ctx.workDir, "instrument-cache");
    mkdirSync(this.cacheDir, { recursive: true });
    this.pendingSeeds = job.seeds.map((s, i) => ({ id: s.id ?? `seed-${i}`, data: new Uint8Array(Buffer.from(s.data, "base64")) }));
    // Without seeds, the empty input is the seed: run first, it takes the
    // coverage every input has, instead of crediting it to a random input.
    if (this.pendingSeeds.length === 0) this.pendingSeeds.push({ id: "empty", data: new Uint8Array(0) });
    for (const s of this.pendingSeeds) this.addEntry(s.id, s.data, 0, 0, s.id === "empty" ? undefined : s.id);
    const longest = Math.max(...this.pendingSeeds.map((s) => s.data.length));
    this.lenCap = Math.min(this.opts.maxLen, Math.max(4, longest));
  }

  async run(): Promise<EngineResultInputFor<"input">> {
    while (!this.shouldStop()) {
      const proc = this.processes++;
      const ex = new Executor({
        init: {
          mode: "fuzz",
          target: this.target.path,
          root: this.target.root,
          cacheDir: this.cacheDir,
          instrument: true,
          known: [...this.rec.features],
        },
        workDir: this.ctx.workDir,
        name: `executor-${proc}`,
        maxMemoryMb: this.opts.maxMemoryMb,
        timeoutMs: this.opts.timeoutMs,
        sandbox: this.ctx.sandbox,
      });
      const stopLoading = () => ex.kill();
      this.ctx.signal.addEventListener("abort", stopLoading);
      const first = await firstMessage(ex, LOAD_TIMEOUT_MS);
      this.ctx.signal.removeEventListener("abort", stopLoading);
      if (this.ctx.signal.aborted && isExit(first)) break;
      if (isExit(first) || first.t !== "ready") {
        if (!isExit(first)) ex.kill();
        const message = isExit(first) ? loadFailure(first) : first.t === "error" ? first.message : `unexpected ${first.t}`;
        if (proc === 0) return this.result({ kind: "target-invalid", message });
        break; // a later executor failing to load: keep what the job found
      }
      this.rec.addFeatures(first.features);
      this.cov.addShapes(first.files);
      this.addTokens(first.tokens);
      ex.startWatchdog(this.opts.timeoutMs);
      const info = await this.drive(ex);
      this.cov.endProcess();
      if (info) this.onFatal(info);
    }
    return this.result();
  }

  /** Pump batches until the budget ends (returns null) or the executor dies (returns how). */
  private drive(ex: Executor): Promise<ExitInfo | null> {
    return new Promise((resolve) => {
      let finishing = false;
      const onAbort = () => pump();
      this.ctx.signal.addEventListener("abort", onAbort);
      const finish = () => {
        if (finishing) return;
        finishing = true;
        ex.send({ t: "finish" });
        setTimeout(() => ex.kill(), this.ctx.signal.aborted ? STOP_GRACE_MS : STOP_GRACE_MS + this.opts.timeoutMs).unref();
      };
      const pump = () => {
        if (finishing) return;
        while (this.ledger.inFlightCount < 2 && !this.shouldStop()) {
          const b = this.makeBatch();
          this.ledger.send(b);
          ex.send({ t: "batch", id: b.id, base: b.base, ...packInputs(b.inputs), snap: this.snapshotDue() });
        }
        if (this.ledger.inFlightCount === 0 || this.ctx.signal.aborted) finish();
      };
      ex.onMessage = (m: ChildMessage) => {
        if (m.t === "done") {
          this.onDone(m);
          pump();
        } else if (m.t === "final") {
          this.onFinal(m);
        }
      };
      void ex.exited.then((info) => {
        this.ctx.signal.removeEventListener("abort", onAbort);
        // After "finish" the harness exits 0 by itself; anything else is a crash.
        const clean = info.killedByUs || (finishing && info.code === 0 && !info.signal);
        resolve(clean ? null : info);
      });
      pump();
    });
  }

  private shouldStop(): boolean {
    return (
      this.ctx.signal.aborted ||
      this.rec.execs + this.ledger.inFlightInputs() >= this.job.budget.runs ||
      performance.now() >= this.deadline ||
      (this.opts.stopOnFinding && this.rec.findingCount > 0)
    );
  }

  private snapshotDue(): boolean {
    const now = performance.now();
    if (now - this.lastSnapshot < SNAPSHOT_EVERY_MS) return false;
    this.lastSnapshot = now;
    return true;
  }

  private makeBatch(): Batch {
    const room = this.job.budget.runs - this.rec.execs - this.ledger.inFlightInputs();
    const size = Math.max(1, Math.min(this.batchSize, room));
    const b: Batch = { id: this.nextBatchId++, base: this.nextSeq, inputs: [], parents: [], applied: [] };
    if (this.pendingSeeds.length > 0) {
      const seeds = this.pendingSeeds.splice(0, size);
      b.inputs = seeds.map((s) => s.data);
      b.parents = seeds.map(() => null);
      b.applied = seeds.map(() => []);
      b.seedIds = seeds.map((s) => s.id);
    } else {
      this.corpus.now = this.rec.execs;
      this.growLenCap();
      const dictionary = this.opts.dictionary ? this.dictionary : undefined;
      while (b.inputs.length < size) {
        if (!this.opts.coverageGuided) {
          b.inputs.push(randomInput(this.rng, this.opts.maxLen));
          b.parents.push(null);
          b.applied.push([]);
          continue;
        }
        // One parent pick per havoc chain; every step of the chain is an input.
        const parent = this.corpus.pick(this.rng);
        const chain = havocChain(parent.data, this.rng, {
          depth: this.opts.havocDepth,
          maxLen: this.lenCap,
          dictionary,
          corpus: this.datas,
        });
        for (const step of chain) {
          if (b.inputs.length >= size) break;
          b.inputs.push(step.data);
          b.parents.push(parent.id);
          b.applied.push(step.applied);
        }
      }
    }
    this.nextSeq += b.inputs.length;
    return b;
  }

  /**
   * libFuzzer's -len_control=100: start with short inputs (fast, and each
   * byte is likelier to be the one mutated) and raise the limit by log(limit)
   * bytes after every 100*log(limit) execs without new coverage.
   */
  private growLenCap(): void {
    const lg = Math.log(this.lenCap);
    if (this.lenCap < this.opts.maxLen && this.rec.execs - this.lastNewCoverageAt > LEN_CONTROL * lg) {
      this.lenCap = Math.min(this.opts.maxLen, Math.ceil(this.lenCap + lg));
      this.lastNewCoverageAt = this.rec.execs;
    }
  }

  private onDone(m: Extract<ChildMessage, { t: "done" }>): void {
    const b = this.ledger.finish(m.id);
    if (!b) return;
    this.rec.exec(m.execs);
    this.cov.addShapes(m.files);
    this.addTokens(m.tokens);
    this.rec.addFeatures(m.loose);
    if (m.counts) this.cov.snapshot(m.counts);
    for (let i = 0; i < b.inputs.length; i++) this.rec.credit(b.applied[i]!, "execs", 1);
    for (const n of m.newCov) this.onNewCoverage(b, n.seq - b.base, n.f, n.us);
    for (const f of m.findings) this.onChildFinding(f);
    // Aim each batch at ~BATCH_TARGET_MS of executor time.
    if (m.ms < BATCH_TARGET_MS / 2 && b.inputs.length >= this.batchSize) this.batchSize = Math.min(MAX_BATCH, this.batchSize * 2);
    else if (m.ms > BATCH_TARGET_MS * 2) this.batchSize = Math.max(MIN_BATCH, this.batchSize >> 1);
    this.rec.progress();
  }

  private onFinal(m: Extract<ChildMessage, { t: "final" }>): void {
    this.rec.addFeatures(m.loose);
    this.cov.snapshot(m.counts);
    for (const f of m.findings) this.onChildFinding(f);
  }

  private onNewCoverage(b: Batch, i: number, features: string[], us: number): void {
    // New features are credited to each mutator the input went through (none for a job seed).
    const fresh = this.rec.addFeatures(features, b.applied[i]!);
    if (fresh.length === 0) return;
    this.lastNewCoverageAt = this.rec.execs;
    const data = b.inputs[i]!;
    const seedId = b.seedIds?.[i];
    if (seedId) {
      const e = this.corpus.get(seedId);
      if (e) Object.assign(e, { execTimeUs: us, newFeatures: e.newFeatures + fresh.length });
      return;
    }
    const parent = b.parents[i] ?? null;
    const id = `${this.job.jobId}:${this.rec.candidateCount}`;
    this.addEntry(id, data, us, fresh.length, parent ? this.rootSeed.get(parent) : undefined);
    if (parent) this.corpus.reward(parent);
    const parentId = parent ? this.rootSeed.get(parent) : undefined;
    this.rec.candidate({
      data: b64(data),
      strategy: { mutators: b.applied[i]!, ...(parent ? { parent } : {}) },
      ...(parentId ? { parentId } : {}),
      features: fresh.slice(0, 100_000),
      execTimeUs: Math.max(0, Math.round(us)),
    });
  }

  private addEntry(id: string, data: Uint8Array, execTimeUs: number, newFeatures: number, rootSeed: string | undefined): void {
    this.corpus.add({ id, data, execTimeUs, newFeatures });
    this.datas.push(data);
    this.rootSeed.set(id, rootSeed);
  }

  private onChildFinding(f: ChildFinding): void {
    const at = this.ledger.locate(f.seq);
    const finding: Finding = {
      kind: "crash",
      crashKind: f.kind,
      message: f.message,
      stack: f.stack,
      reproducer: this.reproducer(at ? at.batch.inputs[at.index]! : undefined),
      detail: { firstExec: f.seq, ...(f.async ? { async: true, attribution: f.attribution } : {}) },
    };
    this.addFinding(finding, f.count);
    if (at) this.rec.credit(at.batch.applied[at.index]!, "findings", 1);
  }

  private onFatal(info: ExitInfo): void {
    const seq = info.status.seq;
    const at = seq >= 0 ? this.ledger.locate(seq) : null;
    this.rec.exec(this.ledger.abandon(seq));
    const verdict = classifyExit(info, this.opts.timeoutMs);
    const input = at ? at.batch.inputs[at.index] : undefined;
    const detail: Record<string, unknown> = {
      firstExec: seq,
      attribution: info.status.running ? "running" : "after-input",
      ...(verdict.kind === "crash" ? verdict.detail : {}),
    };
    const base = { message: verdict.message, stack: info.stderr, reproducer: this.reproducer(input), detail };
    this.addFinding(
      verdict.kind === "hang" ? { kind: "hang", timeoutMs: this.opts.timeoutMs, ...base } : { kind: "crash", crashKind: verdict.crashKind, ...base },
    );
    if (at) this.rec.credit(at.batch.applied[at.index]!, "findings", 1);
  }

  private reproducer(input: Uint8Array | undefined): Finding["reproducer"] {
    return {
      engine: "input",
      ...(input ? { input: b64(input) } : {}),
      seed: this.opts.seed,
      options: { timeoutMs: this.opts.timeoutMs, maxMemoryMb: this.opts.maxMemoryMb, root: this.target.root },
    };
  }

  /** `count` hits of a finding: kept the first time its dedupe key is seen, counted into detail.hits after. */
  private addFinding(f: Finding, count = 1): void {
    const key = dedupeKey(f);
    if (this.rec.claim(key, count)) this.rec.keep(key, f);
  }

  private addTokens(tokens: readonly Uint8Array[]): void {
    for (const t of tokens) {
      if (this.dictionary.length >= MAX_DICTIONARY) return;
      const key = Buffer.from(t.buffer, t.byteOffset, t.byteLength).toString("latin1");
      if (this.dictionaryKeys.has(key)) continue;
      this.dictionaryKeys.add(key);
      this.dictionary.push(new Uint8Array(t));
    }
  }

  private result(error?: EngineResultInputFor<"input">["error"]): EngineResultInputFor<"input"> {
    if (error) return this.rec.failed(error);
    return this.rec.result({ featureTotal: this.cov.featureTotal(), coverage: this.cov.toCoverageMap(this.rec.features) });
  }
}

/**
 * All inputs of a batch in one buffer plus end offsets: one copy through the
 * IPC channel instead of one object per input (3-4x cheaper for small inputs).
 */
export function packInputs(inputs: readonly Uint8Array[]): { data: Uint8Array; ends: Uint32Array } {
  let total = 0;
  for (const x of inputs) total += x.length;
  const data = new Uint8Array(total);
  const ends = new Uint32Array(inputs.length);
  let at = 0;
  inputs.forEach((x, i) => {
    data.set(x, at);
    at += x.length;
    ends[i] = at;
  });
  return { data, ends };
}
