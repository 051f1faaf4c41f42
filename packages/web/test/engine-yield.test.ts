// The campaign page of a Wasm campaign lists per-engine yield: wasm jobs report each compared engine
// configuration as strategy-yield key "engine:<id>" (engine-wasm), shown in their own table.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startFarm, seedCampaign, runJob, type Farm } from "./helpers";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

test("campaign page: per-engine yield table from engine:<id> yield keys", async () => {
  const c = await seedCampaign(farm.db, { engine: "wasm" });
  await runJob(farm, c, { execs: 40, strategyYield: { token: { execs: 40, newFeatures: 9, findings: 0 }, "engine:deno": { execs: 12, newFeatures: 0, findings: 2 }, "engine:bun:ipint": { execs: 8, newFeatures: 0, findings: 0 } } });
  const r = await farm.app.inject({ url: `/campaigns/${c.campaign.id}`, headers: { accept: "text/html" } });
  assert.equal(r.statusCode, 200);
  const table = r.body.slice(r.body.indexOf("<h2>Per-engine yield</h2>"));
  assert.ok(table.startsWith("<h2>Per-engine yield</h2>"), r.body.slice(0, 500));
  assert.match(table, /<td>deno<\/td><td class="num">1<\/td><td class="num">12<\/td><td class="num">2<\/td>/);
  assert.match(table, /<td>bun:ipint<\/td><td class="num">1<\/td><td class="num">8<\/td><td class="num">0<\/td>/);
  const other = await seedCampaign(farm.db, { engine: "wasm" });
  await runJob(farm, other, { execs: 5, strategyYield: { token: { execs: 5, newFeatures: 1, findings: 0 } } });
  const plain = await farm.app.inject({ url: `/campaigns/${other.campaign.id}`, headers: { accept: "text/html" } });
  assert.ok(!plain.body.includes("Per-engine yield"), "no table without engine configurations");
});
