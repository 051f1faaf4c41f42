import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** First executable called `name` on PATH or in `extraDirs`, or null. */
export function which(name: string, path: string, extraDirs: string[] = []): string | null {
  for (const dir of [...path.split(delimiter), ...extraDirs]) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return null;
}

/** Debian keeps PostgreSQL's server binaries off PATH: /usr/lib/postgresql/<major>/bin, newest first. */
export function postgresBinDirs(): string[] {
  try {
    return readdirSync("/usr/lib/postgresql")
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => `/usr/lib/postgresql/${v}/bin`);
  } catch {
    return [];
  }
}
