// The benchmark's bugs: historical Binaryen miscompiles of code around atomics,
// narrow loads and sign extension, each with the npm release that has it and
// the first that does not (installed by install.ts as npm aliases), the
// upstream references, the hand-written module that shows it (bugs/<id>/repro.wat,
// exporting f() -> i32) and the generator configuration of its campaign.
export interface RealBug {
  id: string;
  title: string;
  /** npm versions of `binaryen`: the affected one and the first fixed one. */
  affected: string;
  fixed: string;
  /** Upstream issue / pull request / commit. */
  upstream: string[];
  pass: string;
  /** f() of repro.wat: the right value, and how the affected release gets it wrong. */
  expected: number;
  symptom: "invalid" | "wrong";
  /** Generator overrides of the campaign (preset "opt" plus these). */
  generator: Record<string, unknown>;
}

export const BUGS: RealBug[] = [
  {
    id: "pls-atomic-signed",
    title: "PickLoadSigns turns an atomic narrow load into a signed one (invalid output)",
    affected: "98.0.0",
    fixed: "99.0.0",
    upstream: ["WebAssembly/binaryen#3235 (commit b2d4a1811c)"],
    pass: "pick-load-signs",
    expected: -32639,
    symptom: "invalid",
    generator: {},
  },
  {
    id: "oi-sext-extra-shifts",
    title: "OptimizeInstructions removes a sign extension under an outer shift pair with extra shifts",
    affected: "98.0.0-nightly.20201109",
    fixed: "99.0.0",
    upstream: ["WebAssembly/binaryen#3362", "WebAssembly/binaryen#3376 (commit edb8effe25)"],
    pass: "optimize-instructions",
    expected: -64,
    symptom: "wrong",
    generator: {},
  },
  {
    id: "oi-sext-cmp-const",
    title: "OptimizeInstructions compares a sign-extended value with a constant as a zero-extended one",
    affected: "98.0.0-nightly.20201109",
    fixed: "99.0.0",
    upstream: ["WebAssembly/binaryen#3399 (commit 9aeb8589dc)"],
    pass: "optimize-instructions",
    expected: 0,
    symptom: "wrong",
    generator: {},
  },
  {
    id: "oi-signed-overflow-cmp",
    title: "OptimizeInstructions moves an added constant across a signed comparison that can overflow",
    affected: "111.0.0",
    fixed: "113.0.0",
    upstream: ["WebAssembly/binaryen#5464", "WebAssembly/binaryen#5467 (commit bc2eb23da2)"],
    pass: "optimize-instructions",
    expected: 1,
    symptom: "wrong",
    generator: {},
  },
  {
    id: "pls-signext-depth",
    title: "PickLoadSigns takes extend8_s(ANY(x)) for a sign extension of x and makes x's load signed",
    affected: "120.0.0",
    fixed: "121.0.0",
    upstream: ["WebAssembly/binaryen#7069 (commit f6cfc56472)"],
    pass: "pick-load-signs",
    expected: 8,
    symptom: "wrong",
    generator: {},
  },
  {
    id: "wait-notify-offset",
    title: "The binary writer drops the memarg offset of memory.atomic.wait32 / notify (another address, or a trap)",
    affected: "90.0.0",
    fixed: "91.0.0",
    upstream: ["WebAssembly/binaryen#2569"],
    pass: "binary writer",
    expected: 2,
    symptom: "wrong",
    // the forms grammar writes waits and notifies with offsets; 90.0.0 has no atomic.fence
    generator: { fence: false },
  },
];

/** The npm alias a version is installed under in cache/node_modules. */
export const alias = (version: string): string => `binaryen-${version.replace(/[^0-9a-z]+/gi, "_")}`;
