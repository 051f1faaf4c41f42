// Farm events the coordinator cannot publish are logged, not swallowed: a
// warn event carrying the ids the event concerns and the error, while the
// work that caused it (and local listeners) carries on. Real Redis: once
// published and received by a subscriber, then on a closed connection.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { connect, openQueues, subscribeEvents } from "@fuzzfarm/queue";
import { createAnnouncer } from "../src/events";

const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";

test("a farm event that cannot be published is logged at warn with its campaignId and error; listeners still hear of it", async () => {
  const queues = openQueues({ url: REDIS_URL, prefix: `ffevlog-${randomBytes(4).toString("hex")}`, jobKey: randomBytes(32).toString("base64url") });
  const logged: { level: number; msg: string; [k: string]: unknown }[] = [];
  const announcer = createAnnouncer(queues, pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) }));
  const heard: string[] = [];
  announcer.on("campaignEnded", (id, status) => heard.push(`${id} ${status}`));
  const subscriber = connect(REDIS_URL);
  const received: unknown[] = [];
  const unsubscribe = await subscribeEvents(subscriber, queues.prefix, (ev) => received.push(ev));
  try {
    // connected: published, received, nothing logged
    await announcer.campaignEnded("c-open", "completed");
    for (let i = 0; i < 100 && !received.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(received.map((e) => (e as { campaignId: string }).campaignId), ["c-open"]);
    assert.equal(logged.length, 0, JSON.stringify(logged));

    await queues.connection.quit();
    await announcer.campaignEnded("c-closed", "failed");
    assert.deepEqual(heard, ["c-open completed", "c-closed failed"], "the local listener hears of it either way");
    assert.equal(logged.length, 1, JSON.stringify(logged));
    const e = logged[0]!;
    assert.equal(e.level, 40);
    assert.equal(e.campaignId, "c-closed");
    assert.match(e.msg, /^event campaign not published \(dashboards refresh on the next one\): .*Connection is closed/);
    assert.match(String((e.err as { message?: string }).message), /Connection is closed/);
  } finally {
    await unsubscribe();
    subscriber.disconnect();
    await queues.close().catch(() => {}); // its connection was closed by the test already
  }
});
