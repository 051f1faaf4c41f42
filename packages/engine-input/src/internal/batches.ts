// A batch: inputs sent to the executor in one message, with what the engine
// needs to credit them afterwards (parent seed, mutators applied). Inputs
// carry global sequence numbers so the status file names one exactly.
// The ledger keeps in-flight batches and a few finished ones, because async
// errors and crashes can name an input of a batch already answered.

export interface Batch {
  id: number;
  base: number;
  inputs: Uint8Array[];
  /** Corpus id of each input's parent; null for seeds and random inputs. */
  parents: (string | null)[];
  /** Mutators applied to each input. */
  applied: string[][];
  /** Set when the batch holds the job's seeds. */
  seedIds?: (string | null)[];
}

const KEEP_DONE = 4;

export class BatchLedger {
  private readonly inFlight = new Map<number, Batch>();
  private readonly done: Batch[] = [];

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  inFlightInputs(): number {
    let n = 0;
    for (const b of this.inFlight.values()) n += b.inputs.length;
    return n;
  }

  send(b: Batch): void {
    this.inFlight.set(b.id, b);
  }

  finish(id: number): Batch | undefined {
    const b = this.inFlight.get(id);
    if (!b) return undefined;
    this.inFlight.delete(id);
    this.done.push(b);
    if (this.done.length > KEEP_DONE) this.done.shift();
    return b;
  }

  /** The batch and index of input `seq`, if still known. */
  locate(seq: number): { batch: Batch; index: number } | null {
    for (const b of [...this.inFlight.values(), ...this.done]) {
      if (seq >= b.base && seq < b.base + b.inputs.length) return { batch: b, index: seq - b.base };
    }
    return null;
  }

  /**
   * The executor died while running input `seq`: count what was executed of
   * the in-flight batches (everything before `seq`, and `seq` itself) and drop them.
   */
  abandon(seq: number): number {
    let executed = 0;
    for (const b of this.inFlight.values()) {
      const end = b.base + b.inputs.length;
      if (end <= seq) executed += b.inputs.length;
      else if (seq >= b.base) executed += seq - b.base + 1;
      this.done.push(b);
    }
    this.inFlight.clear();
    while (this.done.length > KEEP_DONE) this.done.shift();
    return executed;
  }
}
