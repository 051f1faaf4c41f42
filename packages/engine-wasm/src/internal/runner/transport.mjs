// @ts-check
// How the runner child talks to its supervisor. Two transports carry the same
// messages (README "Runner protocol"):
//  - Node's IPC channel (advanced serialization) when the child was spawned by
//    Node with one (`process.send` exists): the `node` engine;
//  - JSON lines on stdin / stdout otherwise: Deno, Bun, or any command that
//    implements the protocol. Binary and 64-bit values are encoded in JSON:
//    a Uint8Array as {"$b64": "..."}, a bigint as {"$big": "123"}.
// Plain JS: it runs inside the engine under test, which carries no TS loader.
import process from "node:process";

/**
 * @typedef {import("./messages").RunnerRequest} RunnerRequest
 * @typedef {import("./messages").RunnerReply} RunnerReply
 */

/** @param {string} _k @param {unknown} v */
export function encodeValue(_k, v) {
  if (typeof v === "bigint") return { $big: v.toString() };
  if (v instanceof Uint8Array) return { $b64: toBase64(v) };
  return v;
}

/** @param {string} _k @param {unknown} v */
export function decodeValue(_k, v) {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const o = /** @type {{ $big?: unknown, $b64?: unknown }} */ (v);
    if (typeof o.$big === "string") return BigInt(o.$big);
    if (typeof o.$b64 === "string") return fromBase64(o.$b64);
  }
  return v;
}

/** @param {Uint8Array} u */
function toBase64(u) {
  let s = "";
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, /** @type {number[]} */ (/** @type {unknown} */ (u.subarray(i, i + 0x8000))));
  return btoa(s);
}

/** @param {string} s */
function fromBase64(s) {
  const bin = atob(s);
  const u = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
  return u;
}

/**
 * Connect to the supervisor: `onMessage` gets each request; the returned function sends a reply.
 * The process exits when the supervisor goes away (IPC disconnect, or stdin closed).
 * @param {(msg: RunnerRequest) => void} onMessage
 * @returns {(msg: RunnerReply) => void}
 */
export function connect(onMessage) {
  if (typeof process.send === "function") {
    process.on("message", onMessage);
    process.on("disconnect", () => process.exit(0));
    return (m) => process.send?.(m);
  }
  let buf = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (/** @type {string} */ chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onMessage(JSON.parse(line, decodeValue));
    }
  });
  process.stdin.on("end", () => process.exit(0));
  return (m) => { process.stdout.write(JSON.stringify(m, encodeValue) + "\n"); };
}
