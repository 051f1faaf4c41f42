// @fuzzfarm/engine-input: coverage-guided fuzzing of `export function
// fuzz(data: Buffer)` targets (the libFuzzer / Jazzer.js convention).
// The target runs in a supervised executor process with istanbul counters;
// this process mutates, schedules seeds and collects results.
import type { Engine } from "@fuzzfarm/protocol";
import { runCampaign } from "./internal/campaign";
import { reproduceOnce } from "./internal/reproduce";
import { selfTest } from "./internal/self-test";

export const inputEngine: Engine<"input"> = {
  name: "input",
  selfTest,
  run: runCampaign,
  reproduce: reproduceOnce,
};

export { topFrame, dedupeKey } from "./internal/findings";
