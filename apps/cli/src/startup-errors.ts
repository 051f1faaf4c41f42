// The one line a user sees when a command fails before it could do anything:
// a missing generated Prisma client (a checkout after `npm ci` alone), a
// database that does not exist yet, or a schema that is behind. Each names the
// command that fixes it instead of printing a stack trace.
import { SETUP_COMMAND } from "./runtime";

interface NodeError {
  code?: string;
  message?: string;
}

export async function describeStartupError(e: unknown): Promise<string> {
  const err = (e ?? {}) as NodeError;
  const message = String(err.message ?? e);
  if ((err.code === "ERR_MODULE_NOT_FOUND" || err.code === "MODULE_NOT_FOUND") && /[\\/]generated[\\/]/.test(message))
    return `FF_ERR_DB_DOWN: the database client is not generated yet: run \`${SETUP_COMMAND}\``;
  if (err.code === "ERR_MODULE_NOT_FOUND" || err.code === "MODULE_NOT_FOUND") {
    const what = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1] ?? "a module";
    return `missing ${what}: run \`npm install\` (FuzzFarm's dependencies are not installed)`;
  }
  const { oneLine } = await import("@fuzzfarm/protocol");
  const line = oneLine(e);
  const missingDb = /database "([^"]+)" does not exist/.exec(line);
  if (err.code === "FF_ERR_DB_DOWN" && missingDb) {
    const where = /PostgreSQL at (\S+?)\/[^/\s]* /.exec(line)?.[1];
    return `FF_ERR_DB_DOWN: database "${missingDb[1]}" does not exist${where ? ` on ${where}` : ""}: run \`${SETUP_COMMAND}\` to create it`;
  }
  if ((err.code === "FF_ERR_DB_DOWN" || err.code === "FF_ERR_REDIS_DOWN") && /does not answer/.test(line))
    return `${line} (local services start with \`${SETUP_COMMAND}\`)`;
  return line;
}
