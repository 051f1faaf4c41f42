// THE pattern table of triage. Every regular expression that parses a stack,
// recognises a header, marks a frame as noise or masks a message lives here,
// in one frozen list, so the docs can print it and a reviewer sees in one
// place what FuzzFarm ignores. Parsers look entries up by id or role.
//
// Every pattern runs on one line of at most MAX_LINE_CHARS characters and is
// written without nested ambiguous quantifiers, so hostile text stays linear
// or at worst quadratic in the line length (see test/self-fuzz.test.ts).
import { builtinModules } from "node:module";
import type { FrameLang } from "./types";

interface PatternBase {
  /** Stable id: recorded on ignored frames and listed in the docs. */
  readonly id: string;
  readonly description: string;
  readonly re: RegExp;
}

/** One entry of the table; `role` says which parser uses it. */
export type StackPattern =
  | (PatternBase & { readonly role: "frame"; readonly lang: FrameLang })
  | (PatternBase & { readonly role: "location" })
  | (PatternBase & { readonly role: "ignore"; readonly lang: FrameLang; readonly field: "file" | "fn" })
  | (PatternBase & { readonly role: "header" })
  | (PatternBase & { readonly role: "signal"; readonly signal: string })
  | (PatternBase & { readonly role: "normalize"; readonly replacement: string })
  | (PatternBase & { readonly role: "handle" });

export type PatternRole = StackPattern["role"];

const legacyBuiltins = builtinModules
  .filter((m) => !m.startsWith("_") && !m.includes("/"))
  .map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  .join("|");

const TABLE: StackPattern[] = [
  // ---- frame lines (tried in this order; the first match wins) ----
  { id: "native-frame", role: "frame", lang: "native", re: /^\s*(\d+): (0x[0-9a-fA-F]+) ?(.*?)(?: \[([^\]]*)\])?\s*$/,
    description: "native backtrace line of a V8/Node fatal error: ` 3: 0x154b151 v8::internal::Runtime_Foo(int) [node]`" },
  { id: "v8-at-frame", role: "frame", lang: "js", re: /^\s*at (?:(async) )?(?:(.+?) \((.*)\)|(.+?))(?: \{)?\s*$/,
    description: "V8 stack line: `at fn (loc)`, `at async fn (loc)`, `at new Foo (loc)`, `at loc` (anonymous), wasm frames" },
  { id: "v8-verbose-frame", role: "frame", lang: "js", re: /^\s*(\d+): (.+?)(?:\(aka [^)]*\))? \[0x[0-9a-fA-F]+\] \[(.+?):(\d+)\]/,
    description: "V8 isolate stack dump (`==== JS stack trace ====`, old OOM traces): `2: fn [0x..] [file:12] [bytecode=..]`" },
  { id: "js-numbered-frame", role: "frame", lang: "js", re: /^\s*(\d+): (?:(.+?) \((.*)\)|(\S+))\s*$/,
    description: "`----- JavaScript stack trace -----` line of process.abort() / Node assertions: `2: fn (file:1:2)`" },
  { id: "v8-verbose-noise", role: "frame", lang: "js", re: /^\s*(\d+): (?:\w+Frame \[pc: 0x[0-9a-fA-F]+\]|builtin exit frame: .*)$/,
    description: "V8 stack dump lines without a source location (ExitFrame, StubFrame, EntryFrame...): skipped" },

  // ---- locations inside a JS frame ----
  { id: "loc-eval", role: "location", re: /\(([^()]*):(\d+):(\d+)\)/,
    description: "eval frame `eval at f (file:1:2), <anonymous>:1:5`: the innermost parenthesised call site" },
  { id: "loc-wasm", role: "location", re: /^(?:(wasm:\/\/wasm\/[^:]*):)?wasm-function\[(\d+)\]:(0x[0-9a-fA-F]+)$/,
    description: "wasm location `wasm://wasm/8c5a3f2e:wasm-function[3]:0x4d`" },
  { id: "loc-line-col", role: "location", re: /^(.*):(\d+):(\d+)$/, description: "`file:line:col`" },
  { id: "loc-line", role: "location", re: /^(.*):(\d+)$/, description: "`file:line`" },

  // ---- frames that are noise ----
  { id: "node-internal", role: "ignore", lang: "js", field: "file", re: /^(?:node:|internal\/)/,
    description: "Node's own modules: `node:internal/...`, `node:events`, `node:async_hooks`, node:test internals" },
  { id: "node-legacy-builtin", role: "ignore", lang: "js", field: "file", re: new RegExp(`^(?:${legacyBuiltins})\\.js$`),
    description: "Node builtins as old versions print them: `events.js`, `timers.js`" },
  { id: "node-eval-wrapper", role: "ignore", lang: "js", field: "file", re: /^\[eval\]-wrapper$/,
    description: "the wrapper `node -e` puts around the script" },
  { id: "v8-builtin", role: "ignore", lang: "js", field: "file", re: /^(?:<anonymous>|native|index \d+|)$/,
    description: "V8 builtins without a source: `Array.map (<anonymous>)`, `new Promise (<anonymous>)`, `Promise.all (index 0)`" },
  { id: "fuzzfarm-engine", role: "ignore", lang: "js", field: "file", re: /\/packages\/engine-[^/]+\/|\/node_modules\/@fuzzfarm\//,
    description: "FuzzFarm's engines (`/packages/engine-*/`, `node_modules/@fuzzfarm/`)" },
  { id: "fuzzfarm-preload", role: "ignore", lang: "js", field: "file", re: /\/fuzzfarm\/(?:[^/]*\/)*[^/]*(?:preload|executor|harness)[^/]*$/,
    description: "FuzzFarm preloads and executors under a `/fuzzfarm/` directory" },
  { id: "test-harness", role: "ignore", lang: "js", field: "file",
    re: /\/node_modules\/(?:mocha|jest[\w-]*|@jest\/[\w-]+|vitest|@vitest\/[\w-]+|tap|@tapjs\/[\w-]+|ava|jasmine[\w-]*|tsx|ts-node|@babel\/register|source-map-support)\//,
    description: "test harnesses and loaders from node_modules: mocha, jest, vitest, tap, ava, jasmine, tsx, ts-node" },
  { id: "native-unsymbolized", role: "ignore", lang: "native", field: "fn", re: /^$/,
    description: "native frames without a symbol (` 4: 0x195e271  [node]`)" },
  { id: "native-fatal-machinery", role: "ignore", lang: "native", field: "fn",
    re: /^(?:node::(?:Abort|Assert|OOMErrorHandler|DumpBacktrace|DumpNativeBacktrace|PrintCaughtException|errors::)|V8_Fatal|V8_Dcheck|v8::base::|v8::Utils::Report|v8::internal::V8::Fatal|v8::internal::Isolate::(?:PrintStack|Throw|ReportPendingMessages)|abort$|raise$|gsignal$|__pthread_kill|pthread_kill$|__GI_)/,
    description: "the code that reports a fatal error rather than causes it: node::Abort, V8_Fatal, OOM handlers, abort/raise" },
  { id: "native-gc-alloc", role: "ignore", lang: "native", field: "fn",
    re: /^v8::internal::(?:Heap|HeapAllocator|Factory|FactoryBase<[^>]*>|MarkCompactCollector|Scavenger\w*|MinorMarkCompactCollector|GCTracer|LocalHeap|ConcurrentMarking|IncrementalMarking|MemoryAllocator|PagedSpace|NewSpace|LargeObjectSpace)::|^v8::internal::Runtime_Allocate/,
    description: "V8's garbage collector and allocator (the path every OOM takes)" },
  { id: "native-trampoline", role: "ignore", lang: "native", field: "fn",
    re: /^(?:Builtins_|v8::internal::(?:Execution::|Builtin_HandleApiCall|FunctionCallbackArguments::|MicrotaskQueue::|\{anon\}::|Builtins::)|v8::(?:Function::Call|Script::Run)|node::(?:InternalCallbackScope|InternalMakeCallback|MakeCallback|CallbackScope|Start$|Start\(|Run$|SpinEventLoop|LoadEnvironment|NodeMainInstance::|StartExecution|builtins::|PerIsolatePlatformData::|Environment::|contextify::|LibuvStreamWrap::|StreamBase::)|uv_|uv__|__libc_start|_start$|main$|start_thread$|clone3?$)/,
    description: "calls between JS and C++ and the event loop: Builtins_*, Execution::Call, MakeCallback, uv_run, main" },

  // ---- headers: what failed ----
  { id: "error-header", role: "header", re: /^\s*(?:Uncaught )?([A-Za-z_$][\w$]*)(?: \[([A-Za-z0-9_]+)\])?(?::\s?(.*))?$/,
    description: "JS error header `TypeError [ERR_X]: message`, `Error: message` or a bare `Error`" },
  { id: "error-name-strict", role: "header", re: /(?:Error|Exception|Rejection)$/,
    description: "a name that is certainly an error class (used when searching upward for the header)" },
  { id: "error-code-prop", role: "header", re: /^\s*code: '([A-Z][A-Z0-9_]+)',?\s*$/,
    description: "the `code: 'ERR_X'` property Node prints after the frames of an error" },
  { id: "nonerror-rejection", role: "header", re: /^This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with \.catch\(\)\. The promise rejected with the reason "(.*)"\.$/,
    description: "Node's text for a promise rejected with a non-Error value; the reason is kept" },
  { id: "throw-site", role: "header", re: /^((?:file:\/\/|node:|wasm:\/\/|\/|[A-Za-z]:\\|\[eval\]|<anonymous_script>)\S*):(\d+)\s*$/,
    description: "first line of Node's uncaught-exception print: where it was thrown (`/app/x.js:3`)" },
  { id: "fatal-error", role: "header", re: /^\s*FATAL ERROR: (.*)$/,
    description: "V8/Node fatal error line, e.g. `FATAL ERROR: Reached heap limit ... JavaScript heap out of memory`" },
  { id: "v8-fatal-in", role: "header", re: /^#\s*Fatal error in (.*), line (\d+)\s*$/,
    description: "V8 CHECK failure banner `# Fatal error in ../src/x.cc, line 12` (the next `#` line says what)" },
  { id: "v8-fatal-what", role: "header", re: /^#\s*(\S.*)$/, description: "the `# Check failed: ...` line after the banner" },
  { id: "node-assert-site", role: "header", re: /^\s*#\s*[\w.-]+\[\d+\]: (.*?) at (\S+)\s*$/,
    description: "Node C++ assertion site `# node[123]: void node::Foo(...) at ../src/foo.cc:156`" },
  { id: "node-assert", role: "header", re: /^\s*#\s*(Assertion failed: .*)$/, description: "Node C++ assertion `# Assertion failed: cond`" },
  { id: "v8-abort", role: "header", re: /^abort: (.*)$/, description: "V8 %Abort: `abort: reason`" },
  { id: "oom-text", role: "header", re: /JavaScript heap out of memory|Allocation failed|Reached heap limit|out of memory/i,
    description: "an out-of-memory report" },
  { id: "wasm-trap", role: "header",
    re: /^(?:unreachable|memory access out of bounds|divide by zero|integer divide by zero|integer overflow|float unrepresentable in integer range|invalid conversion to integer|table index is out of bounds|null function or function signature mismatch|indirect call to null|data segment out of bounds|element segment out of bounds|operation does not support unaligned accesses|dereferencing a null pointer|array element access out of bounds|illegal cast|unaligned access|atomics wait not allowed)/,
    description: "WebAssembly trap messages of V8's RuntimeError" },

  // ---- signals named in text ----
  { id: "signal-name", role: "signal", signal: "", re: /\b(SIG[A-Z0-9]{2,7})\b/, description: "a signal by name: SIGSEGV" },
  { id: "signal-segv-text", role: "signal", signal: "SIGSEGV", re: /\bSegmentation fault\b/, description: "shell wording of SIGSEGV" },
  { id: "signal-abrt-text", role: "signal", signal: "SIGABRT", re: /\bAborted\b/, description: "shell wording of SIGABRT" },
  { id: "signal-trap-text", role: "signal", signal: "SIGTRAP", re: /\bTrace\/breakpoint trap\b/, description: "shell wording of SIGTRAP" },
  { id: "signal-bus-text", role: "signal", signal: "SIGBUS", re: /\bBus error\b/, description: "shell wording of SIGBUS" },
  { id: "signal-ill-text", role: "signal", signal: "SIGILL", re: /\bIllegal instruction\b/, description: "shell wording of SIGILL" },
  { id: "signal-fpe-text", role: "signal", signal: "SIGFPE", re: /\bFloating point exception\b/, description: "shell wording of SIGFPE" },

  // ---- message normalization (applied in this order) ----
  { id: "mask-uuid", role: "normalize", replacement: "<uuid>", re: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
    description: "uuids" },
  { id: "mask-tmp-path", role: "normalize", replacement: "<tmp>",
    re: /(?:\/private)?\/(?:tmp|var\/tmp|dev\/shm|var\/folders\/[^\s/]+\/[^\s/]+\/T)\/[^\s/'"`:,;()[\]]+|[A-Za-z]:\\(?:Users\\[^\\\s]+\\AppData\\Local\\)?Temp\\[^\s\\'"`:,;()]+/g,
    description: "temp directories: `/tmp/xyz123`, `/var/folders/../T/x`, `C:\\...\\Temp\\x` (the random part)" },
  { id: "mask-time", role: "normalize", replacement: "<time>", re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g,
    description: "ISO timestamps" },
  { id: "mask-ipv4", role: "normalize", replacement: "<ip>", re: /\b(?:\d{1,3}\.){3}\d{1,3}\b/g, description: "IPv4 addresses" },
  { id: "mask-port", role: "normalize", replacement: "$1:<port>", re: /(<ip>|localhost|\[[0-9a-fA-F:]*\]|::1?):\d{1,5}\b/g,
    description: "ports after a host: `127.0.0.1:54321`" },
  { id: "mask-port-word", role: "normalize", replacement: "$1 <port>", re: /\b(port):? ?\d{1,5}\b/gi, description: "`port 8080`" },
  { id: "mask-pid-word", role: "normalize", replacement: "$1$2<pid>", re: /\b(pid|process|worker|thread|tid)([ =:#]?)\d+\b/gi,
    description: "`pid 1234`, `worker#2`" },
  { id: "mask-pid-bracket", role: "normalize", replacement: "$1[<pid>]:", re: /\b([A-Za-z][\w.-]*)\[\d+\]:/g, description: "`node[1234]:`" },
  { id: "mask-hex", role: "normalize", replacement: "<hex>", re: /\b0x[0-9a-fA-F]+\b/g, description: "hex addresses `0xdeadbeef`" },
  { id: "mask-hex-id", role: "normalize", replacement: "<hex>", re: /\b(?=[0-9a-f]{0,64}\d)(?=[0-9a-f]{0,64}[a-f])[0-9a-f]{8,}\b/g,
    description: "hashes and ids of 8+ lowercase hex digits mixing letters and digits" },
  { id: "mask-number", role: "normalize", replacement: "<n>", re: /\b\d+(?:\.\d+)?\b/g, description: "numbers" },
  { id: "mask-space", role: "normalize", replacement: " ", re: /\s+/g, description: "runs of white space" },

  // ---- pending handles of a hang ----
  { id: "handle-entry", role: "handle", re: /^\s*([A-Za-z_$][\w$.#-]*)\s*(?:\((.*)\))?\s*$/,
    description: "a pending handle or timer: `Timeout(fs-cache.js:12)`, `TCPWRAP`" },
  { id: "handle-listing-title", role: "handle", re: /\b(?:pending|active|open|blocked|waiting)\b.*\b(?:handles?|resources?|timers?|threads?)\b[^:]*:\s*$/i,
    description: "the title line of a handle listing in text (`Pending handles:`); entries follow one per line" },
];

for (const p of TABLE) Object.freeze(p);

/** The pattern table, read-only (documented in README.md). */
export const STACK_PATTERNS: readonly StackPattern[] = Object.freeze(TABLE);

const byId = new Map(STACK_PATTERNS.map((p) => [p.id, p]));

/** The regular expression of one entry (throws on an unknown id: a programming error). */
export function re(id: string): RegExp {
  const p = byId.get(id);
  if (!p) throw new Error(`triage: no pattern ${id}`);
  return p.re;
}

/** Entries of one role, in table order. */
export function patternsOf<R extends PatternRole>(role: R): Extract<StackPattern, { role: R }>[] {
  return STACK_PATTERNS.filter((p): p is Extract<StackPattern, { role: R }> => p.role === role);
}
