// A worker's wasm engine binaries in its configuration: command engines by name (argv split without a
// shell: quotes group, nothing expands, ; inside quotes stays), their tiers, Deno / Bun paths or "none",
// from env, NAME_FILE and the config file; malformed entries are one FF_ERR_CONFIG line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@fuzzfarm/config";

const dir = mkdtempSync(join(tmpdir(), "ffcfg-engines-"));
const load = (env: Record<string, string>) => loadConfig({ cwd: dir, env });

test("FUZZFARM_WASM_ENGINES: NAME=ARGV and NAME:TIER=ARGS, split like shell words with no expansion", () => {
  const c = load({
    FUZZFARM_WASM_ENGINES: `mine = node --no-liftoff "/opt/my runner/child.mjs" 'a;b' $HOME *; mine:liftoff=--liftoff-only --x="1 2"; other=/bin/echo a\\ b "q\\"uote"`,
    FUZZFARM_DENO_PATH: "/opt/deno/bin/deno",
    FUZZFARM_BUN_PATH: "none",
  });
  assert.deepEqual(c.wasmEngines, [
    { name: "mine", command: ["node", "--no-liftoff", "/opt/my runner/child.mjs", "a;b", "$HOME", "*"], tiers: { liftoff: ["--liftoff-only", "--x=1 2"] } },
    { name: "other", command: ["/bin/echo", "a b", 'q"uote'], tiers: {} },
  ]);
  assert.equal(c.denoPath, "/opt/deno/bin/deno");
  assert.equal(c.bunPath, null, '"none": no Bun on this worker');
});

test("defaults: no command engines, Deno and Bun from the npm packages (undefined paths)", () => {
  const c = load({});
  assert.deepEqual(c.wasmEngines, []);
  assert.equal(c.denoPath, undefined);
  assert.equal(c.bunPath, undefined);
});

test("the config file takes a list of entries; FUZZFARM_WASM_ENGINES_FILE a file holding the setting", () => {
  const file = join(dir, "f.json");
  writeFileSync(file, JSON.stringify({ wasmEngines: ["mine=node /r/child.mjs", "mine:turbofan=--no-liftoff"] }));
  assert.deepEqual(loadConfig({ cwd: dir, file, env: {} }).wasmEngines, [{ name: "mine", command: ["node", "/r/child.mjs"], tiers: { turbofan: ["--no-liftoff"] } }]);
  writeFileSync(join(dir, "engines.txt"), "x=/usr/bin/x --flag\n");
  assert.deepEqual(load({ FUZZFARM_WASM_ENGINES_FILE: "engines.txt" }).wasmEngines, [{ name: "x", command: ["/usr/bin/x", "--flag"], tiers: {} }]);
});

test("malformed entries are one FF_ERR_CONFIG line naming the problem", () => {
  const bad: [string, RegExp][] = [
    ["mine", /'mine' is not NAME=COMMAND or NAME:TIER=ARGS/],
    ["mine=", /command engine 'mine' has an empty command/],
    ["mine=  ", /empty command/],
    ["x:liftoff=--liftoff-only", /tier 'x:liftoff' names no command engine 'x'/],
    ["m=node 'unterminated", /unterminated single quote/],
    ['m=node "open', /unterminated double quote/],
    ["m=node trailing\\", /ends with a backslash/],
    ["a=1;a=2", /'a' is named twice/],
  ];
  for (const [v, re] of bad)
    assert.throws(() => load({ FUZZFARM_WASM_ENGINES: v }), (e: { code?: string; message: string }) => e.code === "FF_ERR_CONFIG" && /^config wasmEngines: /.test(e.message) && re.test(e.message) && !e.message.includes("\n"), v);
});
