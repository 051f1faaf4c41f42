// A job id runs at most once. The signature covers the payload and so its job
// id; the worker runs a payload only under the BullMQ id it was signed with,
// and only after claiming that id in Redis:
//
//   <prefix>:jobs-ran:<job id> = run:<worker>   SET NX, a lease of half the BullMQ lock, renewed while it runs
//                              = done:<worker>  once its result is published, kept DONE_TTL_S
//
// A signed job queued again (under its own id or a new one) after it ran is
// refused unrun. A worker killed mid-job leaves a lease that lapses before
// its BullMQ lock does, so the job BullMQ hands to another worker still runs
// there (once; the first run published nothing). Why Redis and not the job
// row: workers hold no database access, and the key lies under the worker
// ACL's `<prefix>:jobs-*` pattern, so no new grant is needed. Its limit (the
// worker ACL user can delete the key too) is in docs/security.md.
import type { FarmQueues } from "@fuzzfarm/queue";

type Redis = FarmQueues["connection"];

/** How long a "done" mark is kept: longer than any job lives (budgets are at most a day, queues are emptied when a campaign ends). */
export const DONE_TTL_S = 8 * 24 * 3600;

export const claimKey = (prefix: string, jobId: string) => `${prefix}:jobs-ran:${jobId}`;

export type Claim =
  | { ok: true; /** The job's result is published: it never runs again. */ done(): Promise<void>; /** The job did not finish here: another delivery may run it. */ release(): Promise<void> }
  | { ok: false; /** "already ran on W" (refuse for good) or "is running on W" (a duplicate delivery: retry later). */ why: string; final: boolean };

export async function claimJob(redis: Redis, prefix: string, jobId: string, workerId: string, lockMs: number): Promise<Claim> {
  const key = claimKey(prefix, jobId);
  const mine = `run:${workerId}`;
  const leaseMs = Math.max(500, Math.floor(lockMs / 2));
  if ((await redis.set(key, mine, "PX", leaseMs, "NX")) !== "OK") {
    const holder = (await redis.get(key)) ?? "";
    if (holder.startsWith("done:")) return { ok: false, final: true, why: `job ${jobId} already ran (on ${holder.slice(5)}): a job id runs once` };
    return { ok: false, final: false, why: `job ${jobId} is running on ${holder.slice(4) || "another worker"}` };
  }
  const renew = setInterval(() => void redis.set(key, mine, "PX", leaseMs, "XX").catch(() => {}), Math.max(100, Math.floor(leaseMs / 3)));
  return {
    ok: true,
    async done() {
      clearInterval(renew);
      await redis.set(key, `done:${workerId}`, "EX", DONE_TTL_S);
    },
    async release() {
      clearInterval(renew);
      if ((await redis.get(key)) === mine) await redis.del(key);
    },
  };
}
