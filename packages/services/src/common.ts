export interface EnsureOptions {
  /** Where local service data goes (e.g. ./.fuzzfarm). */
  dataDir: string;
  /** PATH to search for server binaries. */
  path: string;
  /**
   * When a server is not installed and this process is root on Debian,
   * install it with apt-get (redis-server, postgresql). Default false.
   */
  installPackages?: boolean;
  /**
   * Folders searched for initdb / pg_ctl besides `path`. Default: Debian's
   * /usr/lib/postgresql/<major>/bin, newest first.
   */
  postgresBinDirs?: string[];
  /** Progress lines (an install, the embedded PostgreSQL). Default: none. */
  log?: (line: string) => void;
}

export interface EnsureResult {
  started: boolean;
  /** One line for the user: "already running" or what was started. */
  how: string;
}

export const isLocal = (host: string) => ["127.0.0.1", "localhost", "::1", "[::1]"].includes(host);

export async function waitFor(probe: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      await probe();
      return;
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw last;
}
