// "Reproduce and count" for `fuzzfarm repro`, whichever way the reproducer
// came (a farm's bucket or a reproducer file of `fuzzfarm ci`): the run N
// times in one work directory, the count of runs that are the bucket's bug,
// and the verdict as the command prints it. A reproducer is stored data: an
// optimizer it names runs only when FUZZFARM_ALLOWED_OPTIMIZERS lists it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FuzzFarmError, findingKind, type EngineName, type Outcome, type Reproducer } from "@fuzzfarm/protocol";
import { checkOptimizers, loadEngines } from "@fuzzfarm/worker";
import { terminalText } from "@fuzzfarm/logging";

export interface ReproRuns {
  runs: number;
  hits: number;
  outcomes: Outcome[];
}

/** Runs `repro` on `targetPath` `runs` times; a run counts when `isHit` says it is the bug. */
export async function reproduceAndCount(targetPath: string, repro: Reproducer, runs: number, allowedOptimizers: string[] | undefined, isHit: (o: Outcome) => boolean): Promise<ReproRuns> {
  if (repro.engine === "wasm") checkOptimizers(repro.options, allowedOptimizers, "the allowed optimizers", "FF_ERR_FORBIDDEN");
  const { engines, missing } = await loadEngines([repro.engine as EngineName]);
  if (!engines[0]) throw new FuzzFarmError("FF_ERR_ENGINE_UNAVAILABLE", `engine ${repro.engine} unavailable: ${missing[0]?.why}`);
  let hits = 0;
  const outcomes: Outcome[] = [];
  const workDir = await mkdtemp(join(tmpdir(), "ffrepro-"));
  try {
    for (let i = 0; i < runs; i++) {
      const o = await engines[0].reproduce({ path: targetPath }, repro, { signal: new AbortController().signal, workDir });
      outcomes.push(o);
      if (isHit(o)) hits++;
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return { runs, hits, outcomes };
}

/** Prints the verdict (JSON with `fields`, or a line naming `what` and the last failure's stack); exit 0 reproduced, 1 not. */
export function writeReproVerdict(out: NodeJS.WritableStream, json: boolean | undefined, fields: Record<string, unknown>, what: string, r: ReproRuns): number {
  if (json) out.write(`${JSON.stringify({ ...fields, runs: r.runs, reproduced: r.hits, outcomes: r.outcomes.map((o) => (o.kind === "ok" ? "ok" : `${findingKind(o)}: ${o.message}`)) })}\n`);
  else {
    out.write(`${terminalText(what)}: ${r.hits > 0 ? "reproduced" : "did not reproduce"} in ${r.hits}/${r.runs} run(s)\n`);
    const last = r.outcomes[r.outcomes.length - 1];
    if (last && last.kind !== "ok") out.write(`${terminalText(last.stack).split("\n").slice(0, 10).join("\n")}\n`);
  }
  return r.hits > 0 ? 0 : 1;
}
