// What a report's artifact says about how to replay and understand it:
//  - Node races: the recorded schedule (reproducer.trace.events: delivery
//    order, which callbacks the fuzzer held back) and, when an engine or the
//    minimizer wrote one, a textual explanation (detail.explanation);
//  - Wasm findings: the generated program's text (.wat), wherever the engine
//    kept it (trace.wat / trace.program / detail.wat / detail.program).
// The artifact is attacker-influenced JSON: only typed fields are picked.

export interface ScheduleStep {
  seq: number;
  id: string;
  held: boolean;
  t: number | null;
}

export interface FindingExtras {
  explanation: string[];
  schedule: ScheduleStep[];
  scheduleTotal: number;
  strategy: string | null;
  fingerprint: string | null;
  seed: number | null;
  wat: string | null;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function findingExtras(artifact: unknown, maxSteps = 300): FindingExtras {
  const a = obj(artifact);
  const repro = obj(a.reproducer);
  const detail = obj(a.detail);
  const trace = obj(repro.trace);
  const ex = detail.explanation ?? trace.explanation;
  const explanation = typeof ex === "string" ? ex.split("\n") : Array.isArray(ex) ? ex.filter((x): x is string => typeof x === "string") : [];
  const events = Array.isArray(trace.events) ? trace.events : [];
  const schedule = events.slice(0, maxSteps).map((e, i) => {
    const o = obj(e);
    return { seq: typeof o.seq === "number" ? o.seq : i, id: str(o.id) ?? "?", held: o.held === true, t: typeof o.t === "number" ? o.t : null };
  });
  const strat = trace.strategy ?? detail.strategy;
  const strategy = typeof strat === "string" ? strat : str(obj(strat).name);
  const candidates = [trace.wat, trace.program, detail.wat, detail.program, repro.trace];
  const wat = candidates.map(str).find((s) => s !== null && /^\s*(;;[^\n]*\n\s*)*\(module\b/.test(s)) ?? null;
  return {
    explanation,
    schedule,
    scheduleTotal: events.length,
    strategy,
    fingerprint: str(trace.fingerprint),
    seed: typeof repro.seed === "number" ? repro.seed : null,
    wat,
  };
}
