// A periodic task (heartbeat, route lookup) that fails while Redis is away
// would fail every period: it is logged once when it starts failing (warn,
// with the error) and once when it works again (info), not every time.
import { oneLine } from "@fuzzfarm/protocol";
import type { Logger } from "@fuzzfarm/logging";

export interface FailureLog {
  failed(err: unknown): void;
  succeeded(): void;
}

export function failureLog(logger: Logger, what: string): FailureLog {
  let failing = false;
  return {
    failed(err) {
      if (failing) return;
      failing = true;
      logger.warn({ err }, `${what} failed (retried every period; logged again when it works): ${oneLine(err)}`);
    },
    succeeded() {
      if (!failing) return;
      failing = false;
      logger.info(`${what} works again`);
    },
  };
}
