// SARIF 2.1.0 for code scanning: one result per NEW bucket, located at its
// top meaningful frame in the repository (github/codeql-action/upload-sarif
// shows it on the pull request's diff). Message text is the target's text,
// escaped for SARIF (escape.ts: no embedded links, controls visible); no
// Markdown message fields are written.
import { sarifText } from "./escape";
import type { PullRequestReport } from "./report";

export interface SarifOptions {
  /** Version of the tool recorded in the log. Default "0.1.0". */
  toolVersion?: string;
  /** URI of the tool's home page recorded in the log. Default none. */
  informationUri?: string;
}

export const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

export function toSarif(r: PullRequestReport, opts: SarifOptions = {}): Record<string, unknown> {
  const fresh = r.buckets.filter((b) => b.class === "new");
  const kinds = [...new Set(fresh.map((b) => b.kind))].sort();
  return {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "FuzzFarm",
            version: opts.toolVersion ?? "0.1.0",
            ...(opts.informationUri ? { informationUri: opts.informationUri } : {}),
            rules: kinds.map((k) => ({
              id: `fuzzfarm/${k}`,
              name: `crash-${k}`,
              shortDescription: { text: `A fuzzing input makes the target fail (${k})` },
              defaultConfiguration: { level: "error" },
            })),
          },
        },
        results: fresh.map((b) => ({
          ruleId: `fuzzfarm/${b.kind}`,
          ruleIndex: kinds.indexOf(b.kind),
          level: "error",
          message: { text: sarifText(`${b.title}: ${b.message}. Reproduce: ${b.reproduce}`) },
          partialFingerprints: { fuzzfarmSignature: b.signature },
          locations: b.location
            ? [
                {
                  physicalLocation: {
                    artifactLocation: { uri: b.location.path, uriBaseId: "%SRCROOT%" },
                    region: { startLine: b.location.line, ...(b.location.column ? { startColumn: b.location.column } : {}) },
                  },
                },
              ]
            : [],
          properties: { bucketId: b.id, headReplays: b.head, baseReplays: b.base },
        })),
        columnKind: "utf16CodeUnits",
      },
    ],
  };
}
