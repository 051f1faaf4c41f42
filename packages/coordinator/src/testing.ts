// @fuzzfarm/coordinator/testing: the triage evidence (example bug families
// run through the engines the caller hands in, every result applied as the
// coordinator applies it, buckets measured against the true bugs). Used by
// bench/triage-evidence.ts and test/triage-evidence.test.ts.
export {
  collectEvidence, formatEvidence, measure, INPUT_FAMILIES, HELD_OUT_FAMILIES,
  type Evidence, type EvidenceEngines, type EvidenceOptions, type FamilyStats, type ReportRow,
} from "./triage-evidence";
