import type { FastifyBaseLogger } from 'fastify';

type LogCall = (objectOrMessage: unknown, message?: string) => void;

/**
 * The logger a command hands the container: background work's errors go to `writeError` as one line
 * each, everything else is dropped (the command prints its own result).
 */
export function quietLogger(writeError: (line: string) => void): FastifyBaseLogger {
  const drop: LogCall = () => undefined;
  const error: LogCall = (objectOrMessage, message) => {
    const cause = (objectOrMessage as { err?: unknown } | null)?.err;
    writeError(`parley: ${message ?? String(objectOrMessage)}${cause instanceof Error ? `: ${cause.message}` : ''}`);
  };
  const logger = {
    level: 'error',
    fatal: error,
    error,
    warn: drop,
    info: drop,
    debug: drop,
    trace: drop,
    silent: drop,
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}
