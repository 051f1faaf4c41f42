import { z } from "zod";
import { NODE_JOB_STRATEGIES } from "./node-strategies";

export { NODE_STRATEGIES, NODE_JOB_STRATEGIES, type NodeStrategy } from "./node-strategies";

/** Options of the Node event-loop engine (owned by packages/engine-node). */
export const NodeOptions = z
  .object({
    strategy: z.enum(NODE_JOB_STRATEGIES).default("mix"),
    /** Strategy parameters (max delay ms, delay probability, PCT depth...). */
    params: z.record(z.string(), z.number()).default({}),
    /** First seed of the job; run i uses seedStart + i. */
    seedStart: z.number().int().default(0),
    /** Wall-clock limit of one run before it is reported as a hang, ms. Default 10000. */
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** Program arguments after the script. */
    args: z.array(z.string()).default([]),
  })
  .refine((o) => o.strategy !== "guided" || (Number.isInteger(o.params.guideA) && Number.isInteger(o.params.guideB)), {
    message: "strategy guided needs params guideA and guideB (the racing pair it reverses)",
    path: ["params"],
  });
export type NodeOptions = z.infer<typeof NodeOptions>;
