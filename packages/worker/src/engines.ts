// Load the engines this worker can run. An engine whose package fails to load
// is reported and left out: the worker then simply does not consume its queue.
import type { Engine, EngineName } from "@fuzzfarm/protocol";
import { oneLine } from "@fuzzfarm/protocol";

const LOADERS: Record<EngineName, () => Promise<Engine>> = {
  input: async () => (await import("@fuzzfarm/engine-input")).inputEngine as Engine,
  node: async () => (await import("@fuzzfarm/engine-node")).nodeEngine as Engine,
  wasm: async () => (await import("@fuzzfarm/engine-wasm")).wasmEngine as Engine,
};

export async function loadEngines(names: EngineName[]): Promise<{ engines: Engine[]; missing: { name: EngineName; why: string }[] }> {
  const engines: Engine[] = [];
  const missing: { name: EngineName; why: string }[] = [];
  for (const name of names) {
    const load = LOADERS[name];
    if (!load) {
      missing.push({ name, why: "no such engine" });
      continue;
    }
    try {
      engines.push(await load());
    } catch (e) {
      missing.push({ name, why: oneLine(e) });
    }
  }
  return { engines, missing };
}
