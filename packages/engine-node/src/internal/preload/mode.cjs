// @ts-check
// How much the interceptor records. `record: false` is pure pass-through for
// `--strategy none` runs that nobody asked a trace of (no --trace-out,
// --report or replay): no registration sites are captured (a stack capture
// per request or timer halves throughput and more), delivered events are
// counted but not kept, and the HTTP server keeps llhttp's native consume()
// path. Hang reports still list every pending handle and timer, without
// their sites.
'use strict';
const MODE = { record: true };
module.exports = { MODE };
