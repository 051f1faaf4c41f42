// `fuzzfarm bucket merge|split|status|note`: the same database actions the dashboard's API uses.
import { addBucketNote, BUCKET_STATUSES, mergeBuckets, setBucketStatus, splitBucket, type BucketStatus } from "@fuzzfarm/db";
import { publishEvent } from "@fuzzfarm/queue";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { userInfo } from "node:os";
import type { Config } from "@fuzzfarm/config";
import { openFarm, type Farm } from "../context";

const actor = () => `cli:${userInfo().username}`;
const isBucketStatus = (s: string): s is BucketStatus => (BUCKET_STATUSES as readonly string[]).includes(s);

async function withFarm(config: Config, fn: (farm: Farm) => Promise<string>, out = process.stdout): Promise<number> {
  const farm = await openFarm(config);
  try {
    out.write(`${await fn(farm)}\n`);
    return 0;
  } finally {
    await farm.close();
  }
}

export const mergeCommand = (into: string, from: string[], config: Config) =>
  withFarm(config, async ({ db, queues }) => {
    await mergeBuckets(db, { into, from, actor: actor() });
    await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId: into, action: "merged" });
    return `merged ${from.join(", ")} into ${into}`;
  });

export const splitCommand = (id: string, reportIds: string[], config: Config) =>
  withFarm(config, async ({ db, queues }) => {
    const { newBucketId } = await splitBucket(db, { bucketId: id, reportIds, actor: actor() });
    await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId: newBucketId, action: "split" });
    return `moved ${reportIds.length} report(s) from ${id} into new bucket ${newBucketId}`;
  });

export const statusSetCommand = (id: string, status: string, config: Config) =>
  withFarm(config, async ({ db, queues }) => {
    if (!isBucketStatus(status)) throw new FuzzFarmError("FF_ERR_VALIDATION", `status must be one of ${BUCKET_STATUSES.join(", ")}`);
    await setBucketStatus(db, { bucketId: id, status, actor: actor() });
    await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId: id, action: "status" });
    return `bucket ${id} is now ${status}`;
  });

export const noteCommand = (id: string, note: string, config: Config) =>
  withFarm(config, async ({ db, queues }) => {
    await addBucketNote(db, { bucketId: id, note, actor: actor() });
    await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId: id, action: "note" });
    return `noted on ${id}`;
  });
