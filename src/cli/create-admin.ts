import { randomBytes } from 'node:crypto';
import { AdjustableClock } from '../clock.js';
import type { Config } from '../config.js';
import { recordCliAction } from '../modules/audit/audit.cli.js';
import { CONSOLE_PATH } from '../modules/identity/console-client.js';
import { createNetworkAdmins, MIN_PASSWORD_LENGTH } from '../modules/identity/network-admins.js';
import { AppError } from '../shared/errors.js';
import type { Storage } from '../storage/database.js';
import { OperatorError, UsageError } from './errors.js';

type Print = (line: string) => void;
type WithStorage = <T>(work: (storage: Storage, config: Config) => Promise<T>) => Promise<T>;

/** `parley help`'s line for the command. */
export const CREATE_ADMIN_COMMAND = {
  usage: 'users create-admin --username NAME',
  summary: 'create a network admin who signs in to the console at /console',
};

/** The options beyond the synopsis, for `parley help`. */
export const CREATE_ADMIN_OPTIONS = '--password PW or --password-stdin (default: one made and printed once); --display-name NAME (default: the username)';

interface CreateAdminArgs {
  username: string;
  /** Null: read it from stdin. Undefined: make one. */
  password: string | null | undefined;
  displayName: string | undefined;
}

const KNOWN_OPTIONS = new Set(['--username', '--password', '--password-stdin', '--display-name']);

/** The value after `--name` (or of `--name=value`); a missing value is a usage error. */
function optionValue(args: string[], name: string): string | undefined {
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 3);
  const index = args.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value: parley users create-admin --${name} VALUE`);
  return value;
}

export function parseCreateAdminArgs(args: string[]): CreateAdminArgs {
  const unknown = args.find((arg) => arg.startsWith('--') && !KNOWN_OPTIONS.has(arg.split('=')[0] as string));
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown.split('=')[0]} of users create-admin: see parley help`);
  const username = optionValue(args, 'username');
  if (username === undefined) throw new UsageError('users create-admin needs --username NAME: for example parley users create-admin --username admin');
  const given = optionValue(args, 'password');
  const fromStdin = args.includes('--password-stdin');
  if (given !== undefined && fromStdin) throw new UsageError('give the password with --password or with --password-stdin, not both');
  return { username, password: fromStdin ? null : given, displayName: optionValue(args, 'display-name') };
}

/** Everything on stdin, without the line break `echo` or a password manager ends it with. */
async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += chunk.toString();
  return text.replace(/\r?\n$/, '');
}

/** A service refusal in the words of the command line: a bad value is exit 2, a taken name exit 1. */
function operatorErrorOf(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const reason = error.message.replace(/\.$/, '');
  return error.kind === 'parameters' ? new UsageError(`users create-admin refused: ${reason}`) : new OperatorError(reason);
}

/**
 * `parley users create-admin`: a network admin (users.kind 'admin') with a password, who signs in to
 * the console. A password made here is printed once.
 */
export async function createAdmin(args: string[], print: Print, withStorage: WithStorage, stdin: NodeJS.ReadableStream = process.stdin): Promise<void> {
  const parsed = parseCreateAdminArgs(args);
  const made = parsed.password === undefined;
  const password = parsed.password ?? (made ? randomBytes(12).toString('base64url') : await readStdin(stdin));
  if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  await withStorage(async ({ db }, config) => {
    const clock = new AdjustableClock();
    const admins = createNetworkAdmins({ db, clock });
    const input = { username: parsed.username, password, ...(parsed.displayName !== undefined ? { displayName: parsed.displayName } : {}) };
    const { userId } = await admins.create(input).catch((error: unknown) => {
      throw operatorErrorOf(error);
    });
    await recordCliAction(db, clock.now(), 'users create-admin', 'user.createAdmin', [{ field: 'userId', id: userId }]);
    print(`created network admin ${parsed.username}`);
    if (made) print(`password  ${password}   (shown once: keep it)`);
    print(`sign in at ${config.publicUrl}${CONSOLE_PATH}`);
  });
}
