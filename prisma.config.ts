// Prisma CLI configuration: Wasm schema engine + driver adapter, so that
// generate / migrate work without Prisma's native engine download
// (see docs/prisma-offline.md).
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/fuzzfarm" });
  },
});
