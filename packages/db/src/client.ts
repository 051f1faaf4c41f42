// The one place that constructs a Prisma client. Everything else receives a `Db`.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { createPool } from "./internal/pool";

export type Prisma = InstanceType<typeof PrismaClient>;

export interface Db {
  prisma: Prisma;
  /** Connection string without credentials, for messages. */
  readonly where: string;
  close(): Promise<void>;
}

export interface DbOptions {
  /** postgresql:// URL of the database. */
  url: string;
  /** PostgreSQL schema to use; default `public`. Tests use one schema each. */
  schema?: string;
  /** Pool size of the pg driver; default 10. */
  poolMax?: number;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = u.password ? "***" : "";
    return `${u.host}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}

/** Create a client; no connection is made until the first query (see `pingDb`). */
export function createDb(opts: DbOptions): Db {
  const owned = createPool({
    connectionString: opts.url,
    max: opts.poolMax ?? 10,
    connectionTimeoutMillis: 5000,
    // Raw SQL (bucket upserts, feature inserts) is unqualified: point search_path at the schema too.
    ...(opts.schema ? { options: `-c search_path="${opts.schema}"` } : {}),
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg(owned.pool, opts.schema ? { schema: opts.schema } : undefined) });
  return {
    prisma,
    where: redactUrl(opts.url),
    async close() {
      await prisma.$disconnect();
      await owned.end();
    },
  };
}

/** Throws FF_ERR_DB_DOWN with one line if the database does not answer. */
export async function pingDb(db: Db): Promise<void> {
  try {
    await db.prisma.$queryRawUnsafe("SELECT 1");
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_DB_DOWN", `PostgreSQL at ${db.where} does not answer: ${oneLine(e)}`);
  }
}
