// Queues closed right after they were opened (a short CLI command such as
// `fuzzfarm bucket <id>` that fails fast): BullMQ used to emit 'error' on a
// connection it had already detached from, an uncaught "Connection is
// closed." that ended the command with exit 1 instead of its own error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openQueues } from "../src/index";

const url = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";

test("open and close within a few ms, 60 times: no uncaught error", async () => {
  const uncaught: unknown[] = [];
  const onError = (e: unknown) => uncaught.push(e);
  process.on("uncaughtException", onError);
  try {
    for (let i = 0; i < 60; i++) {
      const q = openQueues({ url, prefix: `ffclose${process.pid}` });
      // the window is while the connection is being set up: vary where in it the close lands
      await new Promise((r) => setTimeout(r, i % 6));
      await q.close();
    }
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    process.off("uncaughtException", onError);
  }
  assert.deepEqual(uncaught.map(String), []);
});
