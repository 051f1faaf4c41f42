// Against real PostgreSQL: connections cut in the middle of transactions (as a
// database restart does) must not cost the pool its clients. Prisma neither
// commits nor rolls back a transaction whose connection died, so without the
// repair in src/internal/pool.ts each cut leaks one pool client per
// transaction in flight: a pool of 4 with 4 transactions cut serves no query
// again, and closing it waits forever.
import { test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);

test("transactions cut by terminated connections: the pool serves queries again and closes within its bound", async () => {
  const database = await createTestDatabase();
  const db = createDb({ url: database.url, poolMax: 4 });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    let stop = false;
    let cut = 0;
    const loader = async () => {
      while (!stop)
        await db.prisma
          .$transaction(async (tx) => {
            await tx.campaign.count();
            await new Promise((r) => setTimeout(r, 30));
            await tx.campaign.count();
          })
          .catch(() => cut++);
    };
    const loaders = [loader(), loader(), loader(), loader()];
    await new Promise((r) => setTimeout(r, 500));
    // Injected: every connection of the pool is terminated by the server while its transaction is open.
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    assert.ok(killed.rowCount! >= 1, "connections were cut");
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await within(Promise.all(loaders), 15_000, "the loaders stop");
    assert.ok(cut >= 1, "some transactions failed with their connection");
    // A pool that lost its four clients for good would time out on every query from here on.
    const until = Date.now() + 20_000;
    let served = false;
    while (!served && Date.now() < until) served = await db.prisma.$transaction(async (tx) => (await tx.campaign.count()) === 0).catch(() => false);
    assert.ok(served, "a transaction is served again after the cut");
    const concurrent = await within(Promise.all(Array.from({ length: 8 }, () => db.prisma.$transaction(async (tx) => tx.campaign.count()))), 10_000, "eight transactions on four clients");
    assert.deepEqual(concurrent, Array(8).fill(0));
  } finally {
    await admin.end();
    await within(db.close(), 10_000, "closing the client");
    await database.drop();
  }
});
