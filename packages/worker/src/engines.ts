// Load the engines this worker can run. An engine whose package fails to load
// (or whose options are invalid) is reported and left out: the worker then
// simply does not consume its queue.
import type { Engine, EngineName } from "@fuzzfarm/protocol";
import { oneLine } from "@fuzzfarm/protocol";
import type { WasmEngineOptions } from "@fuzzfarm/engine-wasm";

/** What the worker's own configuration tells its engines. */
export interface EngineOptions {
  /** The wasm engine's binaries: command engines by name, Deno and Bun paths. Default: none, and the pinned npm binaries. */
  wasm?: WasmEngineOptions;
}

const LOADERS: Record<EngineName, (o: EngineOptions) => Promise<Engine>> = {
  input: async () => (await import("@fuzzfarm/engine-input")).inputEngine as Engine,
  node: async () => (await import("@fuzzfarm/engine-node")).nodeEngine as Engine,
  wasm: async (o) => (await import("@fuzzfarm/engine-wasm")).createWasmEngine(o.wasm ?? {}) as Engine,
};

export async function loadEngines(names: EngineName[], opts: EngineOptions = {}): Promise<{ engines: Engine[]; missing: { name: EngineName; why: string }[] }> {
  const engines: Engine[] = [];
  const missing: { name: EngineName; why: string }[] = [];
  for (const name of names) {
    const load = LOADERS[name];
    if (!load) {
      missing.push({ name, why: "no such engine" });
      continue;
    }
    try {
      engines.push(await load(opts));
    } catch (e) {
      missing.push({ name, why: oneLine(e) });
    }
  }
  return { engines, missing };
}
