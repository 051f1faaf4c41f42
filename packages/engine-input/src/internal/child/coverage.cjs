// @ts-check
// In-process coverage feedback over istanbul's counters. Every counter
// (statement, function, branch arm) not yet covered sits in a flat list;
// after each execution only that list is checked, and a counter that went
// 0 -> nonzero is a new feature and leaves the list. The check gets cheaper
// as coverage grows. Counters already known to the job (from earlier
// executor processes) are dropped from the list at the start.
"use strict";
const path = require("node:path");

/**
 * @typedef {import("../messages").FileShape} FileShape
 * @typedef {import("../messages").Counts} Counts
 * One file's counters in istanbul's global __coverage__ (the instrumented code increments them).
 * @typedef {{ statementMap: Record<string, unknown>, fnMap: Record<string, unknown>, branchMap: Record<string, unknown>,
 *   s: Record<string, number>, f: Record<string, number>, b: Record<string, number[]> }} FileCoverage
 * @typedef {Record<number, number>} CounterTable (a FileCoverage s, f or branch-arms table)
 */

class CoverageTracker {
  /** @param {string} root @param {Iterable<string>} known */
  constructor(root, known) {
    this.root = root;
    this.known = new Set(known);
    /** @type {Map<string, { rel: string, data: FileCoverage }>} */
    this.files = new Map();
    /** @type {CounterTable[]} */
    this.objs = [];
    /** @type {number[]} */
    this.keys = [];
    /** @type {string[]} */
    this.names = [];
  }

  /** @returns {Record<string, FileCoverage>} */
  static global() {
    return /** @type {{ __coverage__?: Record<string, FileCoverage> }} */ (globalThis).__coverage__ ?? {};
  }

  /**
   * Start tracking files that appeared in __coverage__; returns their shapes.
   * @returns {FileShape[]}
   */
  scanNewFiles() {
    const cov = CoverageTracker.global();
    /** @type {FileShape[]} */
    const shapes = [];
    for (const abs of Object.keys(cov)) {
      if (this.files.has(abs)) continue;
      const data = /** @type {FileCoverage} */ (cov[abs]);
      const rel = path.relative(this.root, abs).split(path.sep).join("/");
      this.files.set(abs, { rel, data });
      shapes.push({ rel, statementMap: data.statementMap, fnMap: data.fnMap, branchMap: data.branchMap });
      for (const id of Object.keys(data.s)) this.track(data.s, Number(id), `s:${rel}:${id}`);
      for (const id of Object.keys(data.f)) this.track(data.f, Number(id), `f:${rel}:${id}`);
      for (const id of Object.keys(data.b)) {
        const arms = /** @type {number[]} */ (data.b[id]);
        for (let arm = 0; arm < arms.length; arm++) this.track(arms, arm, `b:${rel}:${id}:${arm}`);
      }
    }
    return shapes;
  }

  /** @param {CounterTable} obj @param {number} key @param {string} name */
  track(obj, key, name) {
    if (this.known.has(name)) return;
    this.objs.push(obj);
    this.keys.push(key);
    this.names.push(name);
  }

  /**
   * Features that turned nonzero since the last call (null when none).
   * @returns {string[] | null}
   */
  collectNew() {
    /** @type {string[] | null} */
    let found = null;
    const objs = this.objs;
    const keys = this.keys;
    for (let i = 0; i < objs.length; i++) {
      if (objs[i][keys[i]] === 0) continue;
      (found ??= []).push(this.names[i]);
      const last = objs.length - 1;
      objs[i] = objs[last];
      keys[i] = keys[last];
      this.names[i] = this.names[last];
      objs.pop();
      keys.pop();
      this.names.pop();
      i--;
    }
    return found;
  }

  /** Hit counts of every tracked file, by relative path. @returns {Counts} */
  counts() {
    /** @type {Counts} */
    const out = {};
    for (const { rel, data } of this.files.values()) {
      out[rel] = {
        s: Object.keys(data.s).map((k) => data.s[k]),
        f: Object.keys(data.f).map((k) => data.f[k]),
        b: Object.keys(data.b).map((k) => data.b[k].slice()),
      };
    }
    return out;
  }
}

module.exports = { CoverageTracker };
