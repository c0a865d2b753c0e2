import { ConfigError, wantsStackTraces } from '../config.js';
import { ServerKeyError } from '../modules/identity/server-key.js';
import { EnvironmentAdminTokenError } from '../modules/tokens/tokens.service.js';
import { DatabaseUnavailableError } from '../storage/database.js';
import { DatabaseVersionError, MigrationFailedError } from '../storage/migrate.js';
import { RedisUnavailableError } from '../storage/redis-target.js';
import { OperatorError } from './errors.js';

type Env = Record<string, string | undefined>;

/** Errors whose message already says what went wrong and what to do. */
const SELF_EXPLAINING = [
  ConfigError,
  DatabaseUnavailableError,
  DatabaseVersionError,
  MigrationFailedError,
  RedisUnavailableError,
  ServerKeyError,
  EnvironmentAdminTokenError,
];

function isSelfExplaining(error: unknown): boolean {
  return error instanceof OperatorError || SELF_EXPLAINING.some((kind) => error instanceof kind);
}

/** The exit code for a failure: 2 when the command line asked for something wrong, else 1. */
export function exitCodeOf(error: unknown): 1 | 2 {
  if (error instanceof OperatorError) return error.exitCode;
  return error instanceof EnvironmentAdminTokenError ? 2 : 1;
}

/** Passwords in DATABASE_URL and REDIS_URL, which no printed line may carry. */
function secretsOf(env: Env): string[] {
  const secrets: string[] = [];
  for (const name of ['DATABASE_URL', 'REDIS_URL']) {
    const raw = env[name];
    if (!raw) continue;
    try {
      const password = new URL(raw).password;
      if (password !== '') secrets.push(password, decodeURIComponent(password));
    } catch {
      // Not a URL: config.ts refuses it with a message that does not repeat it.
    }
  }
  return secrets;
}

function redact(text: string, env: Env): string {
  return secretsOf(env).reduce((result, secret) => result.split(secret).join('***'), text);
}

/** The stack of an error and of its causes, for PARLEY_DEBUG=1. */
function stackOf(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) parts.push(current.stack ?? current.message);
  return parts.join('\nCaused by: ');
}

/**
 * What a failed command or start-up prints on stderr: one line, `parley: <what went wrong>: <what to
 * do>`. A stack trace follows only with PARLEY_DEBUG=1 or LOG_LEVEL=debug; an unexpected error says
 * how to get it.
 */
export function formatFailure(error: unknown, env: Env = process.env): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
  const debug = wantsStackTraces(env);
  let text = `parley: ${message}`;
  if (!isSelfExplaining(error) && !debug) text += ' (PARLEY_DEBUG=1 shows where it failed)';
  if (debug) text += `\n${stackOf(error)}`;
  return `${redact(text, env)}\n`;
}
