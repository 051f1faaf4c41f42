// A check run that follows a pull-request campaign:
//   start()     POST  /repos/{o}/{r}/check-runs            status in_progress
//   progress()  PATCH /repos/{o}/{r}/check-runs/{id}       output.summary updated (throttled)
//   complete()  PATCH ... status completed + conclusion + summary table,
//               annotations at the top frame of each new bucket, 50 per
//               request (GitHub's limit; later batches are appended).
// Texts given to progress() and fail() are plain text (they carry lines and
// errors a target printed) and are escaped for Markdown here; annotations are
// plain text with controls made visible (escape.ts).
import type { GitHub } from "./client";
import { markdownText, plainText } from "./escape";
import { conclusionOf, type Conclusion, type PullRequestReport } from "./report";
import { headline, markdownSummary } from "./summary";

/** GitHub accepts at most this many annotations per create / update request. */
export const ANNOTATIONS_PER_REQUEST = 50;

export interface CheckRunOptions {
  github: GitHub;
  owner: string;
  repo: string;
  headSha: string;
  /** Check name shown on the pull request. Default "FuzzFarm". */
  name?: string;
  /** Link to the farm's campaign page, when there is one. */
  detailsUrl?: string;
  /** Campaign id or other reference recorded as external_id. */
  externalId?: string;
  /** Least time between two progress updates, ms. Default 10 000. */
  minProgressIntervalMs?: number;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "failure" | "warning" | "notice";
  title: string;
  message: string;
  raw_details?: string;
}

export function annotationsOf(r: PullRequestReport): Annotation[] {
  return r.buckets
    .filter((b) => b.class === "new" && b.location)
    .map((b) => ({
      path: b.location!.path,
      start_line: b.location!.line,
      end_line: b.location!.line,
      annotation_level: "failure" as const,
      title: plainText(`FuzzFarm: new ${b.kind} crash`, 255),
      message: plainText(`${b.title}\n${b.message}\nReproduce: ${b.reproduce}`),
      raw_details: plainText(`bucket ${b.id}\nsignature ${b.signature}\nhead replays ${b.head.hits}/${b.head.runs}, base replays ${b.base.hits}/${b.base.runs}`),
    }));
}

export class CheckRun {
  id: number | null = null;
  private lastProgress = 0;
  constructor(private readonly o: CheckRunOptions) {}

  private get name() {
    return this.o.name ?? "FuzzFarm";
  }
  private now() {
    return (this.o.now ?? Date.now)();
  }

  async start(text = "Campaign starting"): Promise<number> {
    const { data } = await this.o.github.rest.checks.create({
      owner: this.o.owner,
      repo: this.o.repo,
      name: this.name,
      head_sha: this.o.headSha,
      status: "in_progress",
      started_at: new Date(this.now()).toISOString(),
      ...(this.o.detailsUrl ? { details_url: this.o.detailsUrl } : {}),
      ...(this.o.externalId ? { external_id: this.o.externalId } : {}),
      output: { title: "Fuzzing", summary: text },
    });
    this.id = data.id;
    this.lastProgress = this.now();
    return data.id;
  }

  /** Update the summary with plain `text` (escaped for Markdown) while the campaign runs; returns false when throttled (too soon after the last one). */
  async progress(text: string, force = false): Promise<boolean> {
    if (this.id === null) throw new Error("check run not started");
    if (!force && this.now() - this.lastProgress < (this.o.minProgressIntervalMs ?? 10_000)) return false;
    this.lastProgress = this.now();
    await this.o.github.rest.checks.update({ owner: this.o.owner, repo: this.o.repo, check_run_id: this.id, status: "in_progress", output: { title: "Fuzzing", summary: markdownText(text, { max: 30_000 }) } });
    return true;
  }

  /** Complete with the report's conclusion (or the one given), summary table and annotations. */
  async complete(r: PullRequestReport, conclusion: Conclusion = conclusionOf(r)): Promise<void> {
    if (this.id === null) throw new Error("check run not started");
    const title = `FuzzFarm: ${headline(r)}`.slice(0, 255);
    const summary = markdownSummary(r).slice(0, 65_535);
    const annotations = annotationsOf(r);
    const batches: Annotation[][] = [];
    for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
    // Every batch but the last goes with the check still in progress; the last completes it.
    for (const batch of batches.slice(0, -1))
      await this.o.github.rest.checks.update({ owner: this.o.owner, repo: this.o.repo, check_run_id: this.id, output: { title, summary, annotations: batch } });
    await this.o.github.rest.checks.update({
      owner: this.o.owner,
      repo: this.o.repo,
      check_run_id: this.id,
      status: "completed",
      conclusion,
      completed_at: new Date(this.now()).toISOString(),
      output: { title, summary, ...(batches.length ? { annotations: batches[batches.length - 1] } : {}) },
    });
  }

  /** Complete without a report (the run failed): neutral, with the reason (plain text, escaped for Markdown). */
  async fail(reason: string): Promise<void> {
    if (this.id === null) return;
    await this.o.github.rest.checks.update({
      owner: this.o.owner,
      repo: this.o.repo,
      check_run_id: this.id,
      status: "completed",
      conclusion: "neutral",
      completed_at: new Date(this.now()).toISOString(),
      output: { title: "FuzzFarm could not finish", summary: markdownText(reason, { max: 30_000 }) },
    });
  }
}
