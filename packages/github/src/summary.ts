// The Markdown summary of a pull-request run: the same text goes to
// $GITHUB_STEP_SUMMARY, to --summary FILE and to the check run's summary.
// Every value that is not a number goes through escape.ts (crash titles,
// paths from stacks and refs are the pull request's text).
import { markdownCode } from "./escape";
import { conclusionOf, countByClass, type PullRequestBucket, type PullRequestReport } from "./report";

const ORDER: PullRequestBucket["class"][] = ["new", "pre-existing", "fixed", "unreproduced"];

const cell = (s: string) => markdownCode(s, { cell: true });

export function headline(r: PullRequestReport): string {
  const c = countByClass(r);
  return `${c.new} new, ${c["pre-existing"]} pre-existing, ${c.fixed} fixed bucket(s)`;
}

export function markdownSummary(r: PullRequestReport): string {
  const verdict = { failure: "❌ new crashes", success: "✅ no new crashes", neutral: "⚪ nothing ran" }[conclusionOf(r)];
  const lines = [
    `## FuzzFarm: ${verdict}`,
    "",
    `Target ${markdownCode(r.target)} (${markdownCode(r.engine)} engine), head ${markdownCode(r.headSha.slice(0, 12))} against base ${markdownCode(r.baseRef)} (${markdownCode(r.baseSha.slice(0, 12))}): ${r.executions} executions in ${r.seconds.toFixed(1)} s, ${headline(r)}.`,
    "",
  ];
  if (!r.buckets.length) return [...lines, "No crashes found.", ""].join("\n");
  lines.push("| class | bucket | kind | where | head | base | reproduce |", "|---|---|---|---|---|---|---|");
  const sorted = [...r.buckets].sort((a, b) => ORDER.indexOf(a.class) - ORDER.indexOf(b.class) || a.id.localeCompare(b.id));
  for (const b of sorted) {
    const where = b.location ? cell(`${b.location.path}:${b.location.line}`) : "";
    lines.push(`| **${b.class}** | ${cell(b.title)} | ${cell(b.kind)} | ${where} | ${b.head.hits}/${b.head.runs} | ${b.base.hits}/${b.base.runs} | ${cell(b.reproduce)} |`);
  }
  lines.push("", "head / base: replays that crashed the same way, out of replays run.", "");
  return lines.join("\n");
}
