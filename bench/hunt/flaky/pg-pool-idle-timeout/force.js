// Forces one schedule Node can produce: a forked child's stdout bytes read
// after the child's 'exit' event. 'exit' comes from the process handle
// (SIGCHLD), the bytes from a separate pipe handle; Node's docs say a child's
// stdio "might still be open" when 'exit' fires. Here every 'data' listener
// on a child's stdout runs 200 ms late, so 'exit' (which waits for nothing)
// comes first, as it does when the parent's loop picks up the exit before
// the last pipe read.
'use strict'
const cp = require('node:child_process')
const fork = cp.fork
cp.fork = function (...args) {
  const child = fork.apply(this, args)
  if (child.stdout) {
    const on = child.stdout.on
    child.stdout.on = function (ev, fn) {
      if (ev !== 'data') return on.call(this, ev, fn)
      return on.call(this, ev, (chunk) => setTimeout(() => fn(chunk), 200))
    }
  }
  return child
}
