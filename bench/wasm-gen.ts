// Generator throughput, and the encoder choice: wabt (parseWat + validate +
// toBinary) vs binaryen.js (parseText + validate + emitBinary), on the same
// generated texts, measured in this one run.
//   node --import tsx bench/wasm-gen.ts [--n 2000]
import { emitWat, encodeWat, encodeWatBinaryen, evaluate, generate, parseGenConfig } from "@fuzzfarm/engine-wasm";

const n = process.argv.includes("--n") ? Number(process.argv[process.argv.indexOf("--n") + 1]) : 2000;
const cfg = parseGenConfig({});
await encodeWat("(module)");
await encodeWatBinaryen("(module)");

let t = performance.now();
const texts: string[] = [];
for (let s = 0; s < n; s++) {
  const p = generate(s, cfg);
  evaluate(p);
  texts.push(emitWat(p));
}
const genMs = performance.now() - t;

t = performance.now();
let bytes = 0;
for (const w of texts) bytes += (await encodeWat(w)).length;
const wabtMs = performance.now() - t;

const nb = Math.min(n, 300);
t = performance.now();
for (const w of texts.slice(0, nb)) await encodeWatBinaryen(w);
const binMs = performance.now() - t;

const rate = (k: number, ms: number) => Math.round((k / ms) * 1000);
console.log(`programs: ${n} (mean ${Math.round(bytes / n)} bytes of wasm, ${Math.round(texts.reduce((a, w) => a + w.length, 0) / n)} chars of wat)`);
console.log(`generate + expected result + .wat          ${rate(n, genMs)} programs/s`);
console.log(`  + encode/validate with wabt              ${rate(n, genMs + wabtMs)} programs/s   (wabt alone ${rate(n, wabtMs)}/s)`);
console.log(`  + encode/validate with binaryen.js       ${rate(nb, (genMs * nb) / n + binMs)} programs/s   (binaryen alone ${rate(nb, binMs)}/s)`);
console.log(`encoder ratio wabt/binaryen: ${(rate(n, wabtMs) / rate(nb, binMs)).toFixed(1)}x`);
