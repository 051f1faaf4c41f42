// Crash text a target chose, on every way out to GitHub: the Markdown summary
// (step summary and check-run summary), check-run progress / failure texts,
// annotations and SARIF. Markdown is rendered by micromark with GFM (tables,
// autolink literals) and raw HTML allowed, so anything that stayed live in
// our output shows up as a tag in the rendered HTML.
import { test } from "node:test";
import assert from "node:assert/strict";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import { CheckRun, annotationsOf, createGitHubClient, markdownSummary, toSarif, type PullRequestReport } from "@fuzzfarm/github";
// the escape functions by namespace: this file also loads (and fails per test) where they do not exist yet
import * as github from "@fuzzfarm/github";
import { startFakeGitHub } from "@fuzzfarm/github/testing";

const EVIL = [
  "Error: see [here](https://evil.example/x) and ![pixel](https://evil.example/p.png)",
  '<img src="https://evil.example/i.png"> <script>alert(1)</script> <a href="https://evil.example">a</a>',
  "https://evil.example/autolink www.evil.example mail@evil.example",
  "``` closing fence ` and `` runs `|` pipes | **bold** # heading",
  "\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u001b[2J\u009b31m \u202egnp.exe",
].join("\n");

const render = (md: string) => micromark(md, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });

/** Tags in rendered HTML other than the ones our own Markdown makes. */
function foreignTags(html: string): string[] {
  const ours = new Set(["h2", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "strong"]);
  return [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()).filter((t) => !ours.has(t));
}

const report = (): PullRequestReport => ({
  target: "src/`t`.js",
  engine: "input",
  headSha: "a".repeat(40),
  baseRef: "main [x](https://evil.example)",
  baseSha: "b".repeat(40),
  campaignId: "c1",
  seconds: 5,
  executions: 10,
  buckets: [
    {
      id: "b_1",
      kind: "uncaught",
      title: EVIL,
      signature: "uncaught:Error | f@src/t.js",
      message: EVIL,
      class: "new",
      head: { runs: 1, hits: 1 },
      base: { runs: 1, hits: 0 },
      location: { path: "src/<img src=x>.js", line: 3 },
      reproduce: "fuzzfarm repro b_1",
    },
  ],
});

test("markdown: target text renders as text, never as a link, image, HTML or a broken-out code span", () => {
  const md = markdownSummary(report());
  const html = render(md);
  assert.deepEqual(foreignTags(html), [], html);
  assert.doesNotMatch(html, /href="|src="/);
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(md), "control bytes left in the summary");
  assert.match(render(github.markdownCode(EVIL.split("\n")[4]!)), /\\x1b\]8;;https:\/\/evil\.example\\x07link/); // shown, visibly
  // the table keeps its 7 columns: no pipe of the title split a cell
  const row = html.split("<tr>").find((r) => r.includes("<strong>new</strong>"))!;
  assert.equal(row.match(/<td>/g)?.length, 7, row);
  for (const s of EVIL.split("\n")) {
    assert.deepEqual(foreignTags(render(github.markdownCode(s))), [], s);
    assert.equal(render(github.markdownCode(s)).match(/<code>/g)?.length, 1, s);
    assert.deepEqual(foreignTags(render(github.markdownText(s))), [], s);
    assert.doesNotMatch(render(github.markdownText(s)), /<code|<strong|<em|<h1|href="/, s);
  }
});

test("check run: progress, failure, summary and annotations carry no live Markdown and no control bytes", async () => {
  const gh = await startFakeGitHub({ token: "t" });
  try {
    const github = createGitHubClient({ auth: { kind: "token", token: "t" }, baseUrl: gh.url });
    const check = new CheckRun({ github, owner: "acme", repo: "w", headSha: "a".repeat(40), minProgressIntervalMs: 0 });
    await check.start();
    await check.progress(`[worker 1] ${EVIL}`, true);
    await check.complete(report());
    const check2 = new CheckRun({ github, owner: "acme", repo: "w", headSha: "a".repeat(40) });
    await check2.start();
    await check2.fail(`FuzzFarm failed: ${EVIL}`);
    assert.deepEqual(gh.invalid(), []);
    const outputs = gh.requests.map((r) => (r.body as { output?: { summary: string; annotations?: { title: string; message: string; raw_details?: string }[] } }).output!);
    for (const o of outputs) {
      assert.deepEqual(foreignTags(render(o.summary)), [], o.summary);
      assert.doesNotMatch(render(o.summary), /href="|src="/);
      for (const a of o.annotations ?? []) for (const t of [a.title, a.message, a.raw_details ?? ""]) assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(t), t);
    }
    assert.equal(outputs.flatMap((o) => o.annotations ?? []).length, 1);
  } finally {
    await gh.close();
  }
});

test("sarif: message text has no embedded link and no control bytes; annotations keep the text visible", () => {
  const sarif = toSarif(report()) as { runs: { results: { message: { text: string; markdown?: string } }[] }[] };
  const text = sarif.runs[0]!.results[0]!.message.text;
  assert.equal(sarif.runs[0]!.results[0]!.message.markdown, undefined);
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(text), text);
  // SARIF §3.11.6: an embedded link is an unescaped "[" ... "](" ; every bracket is escaped
  assert.doesNotMatch(text, /(^|[^\\])\[[^\]]*(^|[^\\])\]\(/);
  assert.match(text, /\\\[here\\\]\(https:\/\/evil\.example\/x\)/);
  assert.equal(github.sarifText("a\\[b]"), "a\\\\\\[b\\]");
  const ann = annotationsOf(report())[0]!;
  assert.match(ann.message, /\\x1b\[2J/);
});
