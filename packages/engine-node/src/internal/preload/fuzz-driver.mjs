// @ts-check
// Runs one input through a `fuzz(data)` target under the event-loop
// preload: the node engine mutates the input while it perturbs the target's
// async work. argv: <target> <input file>. An error thrown or rejected by
// fuzz() is left uncaught, so it ends the run like any crash of a program.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [target, inputFile] = process.argv.slice(2);
if (!target || !inputFile) {
  process.stderr.write("usage: fuzz-driver.mjs <target> <input file>\n");
  process.exit(2);
}
const mod = await import(pathToFileURL(target).href);
const fuzz = mod.fuzz ?? mod.default?.fuzz;
if (typeof fuzz !== "function") {
  process.stderr.write(`SyntaxError: ${target} exports no fuzz(data) function\n`);
  process.exit(2);
}
await fuzz(readFileSync(inputFile));
