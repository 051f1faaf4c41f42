// Install the pinned buggy and fixed releases of the real-bug benchmark from
// npm into bench/out/real-bugs/<id>/ (skips bugs whose cache is current).
//   node --import tsx bench/real-bugs/install.ts [id,id...]
import { installBug, realBugs } from "./lib/bugs";

const only = process.argv[2] ?? "";
let failed = 0;
for (const bug of realBugs(only)) {
  const r = installBug(bug, (s) => console.log(s));
  console.log(`${bug.id.padEnd(28)} ${r.ok ? r.message : `FAILED: ${r.message}`}`);
  if (!r.ok) failed++;
}
process.exitCode = failed ? 1 : 0;
