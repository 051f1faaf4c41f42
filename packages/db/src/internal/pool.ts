// The pg pool under Prisma's driver adapter, with the one repair it needs.
//
// When PostgreSQL goes away in the middle of a transaction, Prisma never
// commits nor rolls back that transaction, so its pool client is never
// released: each restart of the database leaks one client per transaction
// in flight (measured: 4 concurrent transactions, a fast stop and a start,
// 4 clients checked out for good), until the pool is exhausted and every
// query waits; and `pool.end()` waits for them forever, which let a CLI
// reach the end of its event loop and exit 0 without its summary.
// The repair: a checked-out client whose connection has closed is released
// with an error (so the pool drops it) after a grace period, and closing
// releases what is still out after a bounded wait.
import pg from "pg";

/** How long a checked-out client may outlive its connection before the pool takes it back. */
const DEAD_CLIENT_GRACE_MS = 5_000;
/** How long closing waits for checked-out clients to come back before it takes them. */
const CLOSE_WAIT_MS = 2_000;

export interface OwnedPool {
  pool: pg.Pool;
  /** Clients checked out right now (for tests and diagnostics). */
  checkedOut(): number;
  /** Ends the pool; never waits more than CLOSE_WAIT_MS for clients its users did not release. */
  end(): Promise<void>;
}

export function createPool(config: pg.PoolConfig): OwnedPool {
  const pool = new pg.Pool(config);
  const out = new Set<pg.PoolClient>();
  pool.on("acquire", (c) => out.add(c));
  pool.on("release", (_err, c) => out.delete(c));
  pool.on("remove", (c) => out.delete(c as pg.PoolClient));
  pool.on("connect", (c) => {
    // A connection the server ends between two queries of a checked-out client emits 'error' on that client,
    // where nothing else listens (the pool only does while the client is idle): without this listener it was an
    // uncaught exception (57P01 "terminating connection due to administrator command"). Queries get their own
    // errors; the dead client itself is handled on 'end' below.
    c.on("error", () => {});
    c.once("end", () => setTimeout(() => take(c as pg.PoolClient, "connection closed while checked out"), DEAD_CLIENT_GRACE_MS).unref());
  });

  function take(c: pg.PoolClient, why: string): void {
    if (!out.has(c)) return;
    out.delete(c);
    // The pool allows one release per checkout and throws on a second: if the
    // late owner ever does release it, that call must be a no-op.
    const release = c.release;
    c.release = () => {};
    release(new Error(why));
  }

  return {
    pool,
    checkedOut: () => out.size,
    async end() {
      const ended = pool.end();
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<"late">((r) => (timer = setTimeout(r, CLOSE_WAIT_MS, "late")));
      if ((await Promise.race([ended, waited])) === "late") for (const c of [...out]) take(c, "pool closing");
      clearTimeout(timer);
      await ended;
    },
  };
}
