// @ts-check
// How the harness turns a thrown value into report fields, and its per-batch
// aggregation key. Stacks are kept raw (triage parses them elsewhere), only
// bounded in size.
"use strict";

const MAX_STACK = 16 * 1024;

/** @param {unknown} e */
function describe(e) {
  if (e instanceof Error) {
    const message = String(e.message || e.name || "Error").split("\n")[0] ?? "";
    return { message, stack: String(e.stack ?? `${e.name}: ${e.message}`).slice(0, MAX_STACK) };
  }
  const text = typeof e === "string" ? e : safeString(e);
  return { message: `non-error thrown: ${text.split("\n")[0]}`.slice(0, 500), stack: text.slice(0, MAX_STACK) };
}

/** @param {unknown} v */
function safeString(v) {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** Aggregation key inside a batch: kind + first stack frame (or message). @param {string} kind @param {string} stack @param {string} message */
function batchKey(kind, stack, message) {
  const frame = /\n\s+at .*/.exec(stack);
  return `${kind}|${frame ? frame[0].trim() : message}`;
}

module.exports = { describe, batchKey, MAX_STACK };
