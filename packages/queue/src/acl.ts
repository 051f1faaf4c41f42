// The Redis ACL of a worker. Workers hold Redis credentials and run code
// under test, so their Redis user reaches only what a worker needs: the job
// and maintenance queues it consumes, the results queue it publishes to and
// the heartbeat hash. Not the dashboard's sessions, not the live-event
// channel, no admin or keyspace-wide commands (KEYS, FLUSHALL, CONFIG...).
// `INFO` stays allowed: BullMQ reads the server version with it.

/** ACL rules (after `user <name> on >password`) for a worker of the farm under `prefix`. */
export function workerAclRules(prefix: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(prefix)) throw new Error(`queue prefix ${JSON.stringify(prefix)} cannot be used in an ACL pattern`);
  const keys = [`${prefix}:jobs-*`, `${prefix}:maintenance-*`, `${prefix}:results:*`, `${prefix}:workers`].map((k) => `~${k}`);
  return ["resetkeys", ...keys, "resetchannels", "+@all", "-@dangerous", "+info"].join(" ");
}
