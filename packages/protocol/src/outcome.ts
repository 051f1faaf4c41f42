// PARALLEL WORK: several engineers share this working tree. Before any git commit or npm install read
// /work/main/CONTRIBUTING.md (git: commit only your paths under flock; npm: install only under flock).
// What one execution of a target ended as. A tagged union, never an
// exception: engines return it, the coordinator dispatches on `kind`.
import { z } from "zod";
import { InputReproducer } from "./options/input";
import { NodeReproducer } from "./options/node";
import { WasmReproducer } from "./options/wasm";

export const CRASH_KINDS = ["uncaught", "rejection", "exit", "signal", "oom"] as const;
export type CrashKind = (typeof CRASH_KINDS)[number];

/** Everything needed to run the same execution again: one shape per engine (options/*.ts). */
export const Reproducer = z.discriminatedUnion("engine", [InputReproducer, NodeReproducer, WasmReproducer]);
export type Reproducer = z.infer<typeof Reproducer>;
type ReproducersByEngine = { [E in Reproducer["engine"]]: Extract<Reproducer, { engine: E }> };
/** The reproducer of one engine's findings. */
export type ReproducerFor<E extends Reproducer["engine"]> = ReproducersByEngine[E];

const findingBase = {
  /** One-line message (first line of the error, or the oracle's verdict). */
  message: z.string(),
  /** Full stack / stderr excerpt / oracle explanation. */
  stack: z.string().default(""),
  reproducer: Reproducer,
  /** Extra facts for triage (pending handles of a hang, oracle diff, exit code...). */
  detail: z.record(z.string(), z.unknown()).default({}),
};

export const Finding = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("crash"), crashKind: z.enum(CRASH_KINDS), ...findingBase }),
  z.object({ kind: z.literal("hang"), timeoutMs: z.number(), ...findingBase }),
  z.object({ kind: z.literal("oracle"), oracle: z.string(), ...findingBase }),
]);
export type Finding = z.infer<typeof Finding>;

export type Outcome = { kind: "ok" } | Finding;
/** A finding of engine E: it carries E's reproducer. */
export type FindingFor<E extends Reproducer["engine"]> = Finding & { reproducer: ReproducerFor<E> };
/** How a run of engine E ended. */
export type OutcomeFor<E extends Reproducer["engine"]> = { kind: "ok" } | FindingFor<E>;

/** The bucket kind of a finding: the crash kind, "hang", or "oracle". */
export function findingKind(f: Finding): string {
  return f.kind === "crash" ? f.crashKind : f.kind;
}
