// Part of setup: start missing local services, create + migrate the main and test databases.
import { fileURLToPath } from "node:url";
import { loadConfig } from "@fuzzfarm/config";
import { ensureServices } from "@fuzzfarm/services";
import { ensureDatabase } from "@fuzzfarm/db";
import { oneLine } from "@fuzzfarm/protocol";

const root = fileURLToPath(new URL("..", import.meta.url));
const config = loadConfig({ cwd: root });
try {
  await ensureServices({
    redisUrl: config.redisUrl,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    path: process.env.PATH ?? "",
    repoRoot: root,
    // A fresh Debian machine: as root, missing servers come from apt-get (as Chromium does for the browser tests).
    installPackages: true,
    log: (l) => process.stderr.write(`setup: ${l}\n`),
  });
  const testDb = new URL(config.databaseUrl);
  testDb.pathname = "/fuzzfarm_test";
  await ensureDatabase(testDb.toString());
} catch (e) {
  process.stderr.write(`setup: ${oneLine(e)}\n`);
  process.exit(2);
}
