// Encoding and decoding through wabt (text <-> binary, validation) and
// Binaryen (the alternative encoder measured in bench/wasm-gen.ts, and the
// shared-everything validator). wabt is the encoder in the hot path: it turns
// our text into a validated binary ~10x faster than binaryen.parseText.
import { createRequire } from "node:module";
import { FuzzFarmError } from "@fuzzfarm/protocol";

const require = createRequire(import.meta.url);
type Wabt = Awaited<ReturnType<typeof import("wabt")>>;
let wabtP: Promise<Wabt> | null = null;

export function wabt(): Promise<Wabt> {
  wabtP ??= (require("wabt") as () => Promise<Wabt>)();
  return wabtP;
}

export const WABT_FEATURES = { threads: true, multi_value: true, bulk_memory: true, sign_extension: true, mutable_globals: true } as const;

/** Text -> validated binary (wabt). Throws FF_ERR_TARGET_INVALID with wabt's first error line. */
export async function encodeWat(text: string, name = "module.wat"): Promise<Uint8Array> {
  const w = await wabt();
  let m;
  try {
    m = w.parseWat(name, text, WABT_FEATURES);
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `cannot parse ${name}: ${firstError(e)}`);
  }
  try {
    (m.validate as (f: object) => void)(WABT_FEATURES);
    return m.toBinary({}).buffer;
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `invalid module ${name}: ${firstError(e)}`);
  } finally {
    m.destroy();
  }
}

/** Binary -> linear (one instruction per line) text with names applied. */
export async function linearText(bytes: Uint8Array, name = "module.wasm"): Promise<string> {
  const w = await wabt();
  let m;
  try {
    m = w.readWasm(bytes, { readDebugNames: true, ...WABT_FEATURES });
    (m.validate as (f: object) => void)(WABT_FEATURES);
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `invalid module ${name}: ${firstError(e)}`);
  }
  try {
    m.generateNames();
    m.applyNames();
    return m.toText({ foldExprs: false, inlineExport: false });
  } finally {
    m.destroy();
  }
}

function firstError(e: unknown): string {
  const s = e instanceof Error ? e.message : String(e);
  const lines = s.split("\n").map((l) => l.trim()).filter((l) => l && !/^(validate|parseWat|readWasm) failed:?$/.test(l));
  return lines[0] ?? s;
}

type Binaryen = typeof import("binaryen").default;
let binaryenP: Promise<Binaryen> | null = null;
/** The project's own Binaryen (binaryen.js, loaded once). */
export function ownBinaryen(): Promise<Binaryen> {
  binaryenP ??= import("binaryen").then((m) => m.default);
  return binaryenP;
}

/** Text -> validated binary through Binaryen (all features on; used for shared-everything and the bench). */
export async function encodeWatBinaryen(text: string, features?: number): Promise<Uint8Array> {
  const b = await ownBinaryen();
  let m;
  try {
    m = b.parseText(text);
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `binaryen cannot parse module: ${firstError(e)}`);
  }
  try {
    m.setFeatures(features ?? b.Features.All);
    if (!m.validate()) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", "binaryen: module does not validate");
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
