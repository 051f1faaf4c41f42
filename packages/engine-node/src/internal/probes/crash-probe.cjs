// Self-test probe (must fail): an uncaught error thrown from a callback the
// fuzzer held, so the crash passes through the interceptor's own frames.
'use strict';
setTimeout(() => { throw new Error('fuzzfarm self-test probe'); }, 1);
