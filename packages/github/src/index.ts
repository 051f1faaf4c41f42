// @fuzzfarm/github: pull-request results on GitHub. Coordinator-side only
// (it holds tokens; workers never import it):
//   report      classify buckets by replays on head and base (new / pre-existing / fixed)
//   checks      a check run: in_progress -> progress -> completed with annotations
//   sarif       SARIF 2.1.0 for code scanning, one result per new bucket
//   summary     the Markdown table for $GITHUB_STEP_SUMMARY and the check run
//   webhooks    X-Hub-Signature-256 verification and the events that start a campaign
//   escape      target text for Markdown, annotations (plain text) and SARIF messages
//   client      Octokit with a token or as a GitHub App (installation tokens), any base URL
export { classify, conclusionOf, countByClass, type BucketClass, type Conclusion, type PullRequestBucket, type PullRequestReport, type ReplayTally, type SourceLocation } from "./report";
export { markdownSummary, headline } from "./summary";
export { markdownCode, markdownText, plainText, sarifText } from "./escape";
export { toSarif, SARIF_SCHEMA_URI, type SarifOptions } from "./sarif";
export { CheckRun, annotationsOf, ANNOTATIONS_PER_REQUEST, type Annotation, type CheckRunOptions } from "./checks";
export { createGitHubClient, clientForRepository, type GitHub, type GitHubAuth, type GitHubClientOptions } from "./client";
export { verifyWebhookSignature, checkRequestOf, type CheckRequest } from "./webhooks";
export { pullRequestChecks, type PullRequestChecksOptions, type PullRequestRun, type StartedCheck } from "./pull-request-checks";
