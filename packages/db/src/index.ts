// @fuzzfarm/db: the only package that imports the Prisma client.
// Test helpers live behind the "./testing" export.
export { createDb, pingDb, redactUrl, type Db, type DbOptions, type Prisma } from "./client";
export { migrate, ensureDatabase, pendingMigrations, migrationNames, prismaCliEnv, type MigrateOptions } from "./migrate";
export * from "./campaigns";
export * from "./supervision";
export * from "./crashes";
export * from "./results";
export * from "./workers";
export * from "./dashboard";
export * from "./triage-actions";
export * from "./lifecycle";
export * from "./flood";
export * from "./maintenance";
export * from "./ci";
