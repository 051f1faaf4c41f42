// PARALLEL WORK: several engineers share this working tree. Before any git commit or npm install read
// /work/main/CONTRIBUTING.md (git: commit only your paths under flock; npm: install only under flock).
// What one execution of a target ended as. A tagged union, never an
// exception: engines return it, the coordinator dispatches on `kind`.
import { z } from "zod";

export const CRASH_KINDS = ["uncaught", "rejection", "exit", "signal", "oom"] as const;
export type CrashKind = (typeof CRASH_KINDS)[number];

/** Everything needed to run the same execution again (engine-specific). */
export const Reproducer = z.object({
  engine: z.enum(["input", "node", "wasm"]),
  /** Input bytes (base64) for input-fuzzing targets. */
  input: z.string().optional(),
  /** Seed of the perturbation / generator. */
  seed: z.number().int().optional(),
  /** Engine options the finding was made with (strategy, parameters...). */
  options: z.record(z.string(), z.unknown()).default({}),
  /** A recorded schedule trace or a generated program, as the engine wrote it. */
  trace: z.unknown().optional(),
});
export type Reproducer = z.infer<typeof Reproducer>;

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

/** The bucket kind of a finding: the crash kind, "hang", or "oracle". */
export function findingKind(f: Finding): string {
  return f.kind === "crash" ? f.crashKind : f.kind;
}
