// Live updates over server-sent events, through a real socket: farm events
// published on Redis (as the coordinator publishes them) reach every open
// stream; closing the app ends the streams.
import { test } from "node:test";
import assert from "node:assert/strict";
import { get, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { publishEvent } from "@fuzzfarm/queue";
import { startFarm } from "./helpers";

function open(url: string): Promise<{ res: IncomingMessage; next: (re: RegExp) => Promise<string> }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let buf = "";
      const waiters: { re: RegExp; done: (s: string) => void }[] = [];
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        for (const w of [...waiters]) {
          const m = w.re.exec(buf);
          if (m) {
            buf = buf.slice(m.index + m[0].length);
            waiters.splice(waiters.indexOf(w), 1);
            w.done(m[0]);
          }
        }
      });
      resolve({
        res,
        next: (re) =>
          new Promise((done, fail) => {
            const m = re.exec(buf);
            if (m) {
              buf = buf.slice(m.index + m[0].length);
              return done(m[0]);
            }
            const t = setTimeout(() => fail(new Error(`timeout waiting for ${re}`)), 5000);
            waiters.push({ re, done: (s) => (clearTimeout(t), done(s)) });
          }),
      });
    }).on("error", reject);
  });
}

test("farm events reach every open SSE stream, and closing the app ends them", async () => {
  const farm = await startFarm();
  try {
    await farm.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(farm.app.server.address() as AddressInfo).port}/api/events`;
    const [a, b] = await Promise.all([open(url), open(url)]);
    assert.equal(a.res.statusCode, 200);
    assert.match(String(a.res.headers["content-type"]), /^text\/event-stream/);
    await Promise.all([a.next(/: connected\n\n/), b.next(/: connected\n\n/)]);
    await publishEvent(farm.queues.connection, farm.prefix, { type: "bucket", bucketId: "b_1", action: "merged" });
    for (const s of [a, b]) {
      const ev = await s.next(/event: farm\ndata: .*\n\n/);
      const data = JSON.parse(ev.split("data: ")[1]!);
      assert.equal(data.type, "bucket");
      assert.equal(data.bucketId, "b_1");
      assert.equal(typeof data.at, "number");
    }
    // Events of another farm (another prefix) are not delivered.
    await publishEvent(farm.queues.connection, `${farm.prefix}-other`, { type: "workers", count: 3 });
    await publishEvent(farm.queues.connection, farm.prefix, { type: "workers", count: 1 });
    const ev = await a.next(/event: farm\ndata: .*\n\n/);
    assert.equal(JSON.parse(ev.split("data: ")[1]!).count, 1);
    await a.next(/: ping\n\n/);
    const ended = new Promise<void>((r) => a.res.on("end", () => r()));
    await farm.app.close();
    await ended;
  } finally {
    await farm.close().catch(() => {});
  }
});
