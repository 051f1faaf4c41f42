// A tiny stack machine with SIX distinct planted bugs, for the triage evidence
// (docs/triage-evidence.md). The first byte of an input decides which bug it
// can reach, so the true bug of a crash report is known from its input
// (`bugOf`), independently of the stack that triage reads. The remaining
// bytes are the program; the faulting pc and operands vary with the input.
//
//   byte 0  bug id              what happens
//   'D'     vm.div              VmError "division by zero at pc N" in opDiv
//   'P'     vm.underflow        VmError "stack underflow at pc N" in pop, reached from opAdd
//   'p'     vm.underflow        VmError "stack underflow at pc N" in pop, reached from opDup  } one bug, two callers: must merge
//   'J'     vm.const            SyntaxError from JSON.parse in opConst (a builtin frame on top)
//   'K'     vm.halt             process.exit(5) in opHalt
//   'Y'     vm.yield            fuzz returns a promise rejected with a string (not an Error) in opYield
//   'M'     vm.grow             out of memory: opGrow doubles an array without bound
export class VmError extends Error {
  override name = "VmError";
}

/** The bug an input starting with `data[0]` can trigger (null: none). */
export function bugOf(data: Uint8Array): string | null {
  return BUGS[String.fromCharCode(data[0] ?? 0)] ?? null;
}

const BUGS: Record<string, string> = {
  D: "vm.div",
  P: "vm.underflow",
  p: "vm.underflow",
  J: "vm.const",
  K: "vm.halt",
  Y: "vm.yield",
  M: "vm.grow",
};

export function fuzz(data: Buffer): unknown {
  if (data.length < 2) return undefined;
  return run(data);
}

function run(data: Buffer): unknown {
  const stack: number[] = [];
  const mode = data[0];
  for (let pc = 1; pc < data.length; pc++) {
    const op = data[pc]!;
    let r: unknown;
    if (mode === 0x44 /* D */) r = opDiv(stack, op, pc);
    else if (mode === 0x50 /* P */) r = opAdd(stack, pc);
    else if (mode === 0x70 /* p */) r = opDup(stack, pc);
    else if (mode === 0x4a /* J */) r = opConst(stack, data.toString("latin1", pc));
    else if (mode === 0x4b /* K */) r = opHalt(op);
    else if (mode === 0x59 /* Y */) return opYield(op);
    else if (mode === 0x4d /* M */) r = opGrow(op);
    else return null;
    if (r === "stop") break;
  }
  return stack;
}

function pop(stack: number[], pc: number): number {
  if (stack.length === 0) throw new VmError(`stack underflow at pc ${pc}`);
  return stack.pop()!;
}

function opDiv(stack: number[], op: number, pc: number): void {
  if (op % 4 === 0) throw new VmError(`division by zero at pc ${pc}`);
  stack.push(Math.floor(100 / (op % 4)));
}

function opAdd(stack: number[], pc: number): void {
  stack.push(pop(stack, pc) + pop(stack, pc));
}

function opDup(stack: number[], pc: number): void {
  const v = pop(stack, pc);
  stack.push(v, v);
}

function opConst(stack: number[], text: string): string {
  stack.push(Number(JSON.parse(text)));
  return "stop";
}

function opHalt(code: number): string {
  if (code !== 0) process.exit(5);
  return "stop";
}

function opYield(value: number): Promise<never> {
  // Bug: rejects with a bare string, so no stack and no Error class.
  return Promise.reject(`yield ${value} rejected`);
}

function opGrow(seed: number): string {
  // Bug: the table is doubled until the heap is exhausted.
  const table: number[][] = [];
  for (let n = 1; ; n++) table.push(new Array(1 << 16).fill(seed + n));
}
