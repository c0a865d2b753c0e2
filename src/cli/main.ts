import { randomBytes } from 'node:crypto';
import { AdjustableClock } from '../clock.js';
import { type Config, loadConfig } from '../config.js';
import { CLIENTS_COMMANDS, CLIENTS_CREATE_OPTIONS, runClientsCommand } from '../modules/identity/identity.cli.js';
import { recordCliAction } from '../modules/audit/audit.cli.js';
import { parseUsersCommand, USERS_COMMANDS } from '../modules/privacy/privacy.cli.js';
import { createTokensService, ENV_ADMIN_TOKEN_NAME, type TokensService } from '../modules/tokens/tokens.service.js';
import { openStorage, type Storage } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { CREATE_ADMIN_COMMAND, CREATE_ADMIN_OPTIONS, createAdmin } from './create-admin.js';
import { OperatorError, UsageError } from './errors.js';
import { exitCodeOf, formatFailure } from './failure.js';
import { createProgressBar } from './progress.js';
import { demoUserId, newRunTag, seedDemo } from './seed.js';

/**
 * The `parley` command. Each sub-command reads the same configuration as the server, so it acts on
 * the database the server uses (SQLite in DATA_DIR, or DATABASE_URL). Exit codes: 0 done, 1 failed,
 * 2 wrong command line; a failure is one line on stderr.
 */
type Print = (line: string) => void;

const COMMANDS: readonly { usage: string; summary: string }[] = [
  { usage: 'serve', summary: 'start the server (same as npm start)' },
  { usage: 'check', summary: 'build the app once with this configuration, then exit' },
  { usage: 'migrate', summary: 'apply pending database migrations' },
  { usage: 'admin-token create --name NAME', summary: 'print a new admin token (shown once)' },
  { usage: 'admin-token list', summary: 'list admin tokens (never the tokens themselves)' },
  { usage: 'admin-token revoke ID_OR_NAME', summary: `revoke an admin token (not ${ENV_ADMIN_TOKEN_NAME}: unset the variable instead)` },
  ...CLIENTS_COMMANDS,
  CREATE_ADMIN_COMMAND,
  ...USERS_COMMANDS,
  { usage: 'seed --demo', summary: 'add demo users, channels and messages to the database, and say how to look at them' },
  { usage: 'help', summary: 'show this list' },
];

const SEED_LIMITS = {
  users: { fallback: 200, max: 1_000_000 },
  channels: { fallback: 20, max: 100_000 },
  messages: { fallback: 10_000, max: 100_000_000 },
} as const;

export function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.usage.length));
  const seedOptions = Object.entries(SEED_LIMITS).map(([name, limit]) => `--${name} N (${limit.fallback})`);
  return [
    'Usage: parley <command> [options]',
    '',
    ...COMMANDS.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`),
    '',
    'Options:',
    `  clients create:      ${CLIENTS_CREATE_OPTIONS}`,
    `  seed --demo:         ${seedOptions.join(' ')} --password PW (default: a new one, printed once)`,
    `  users create-admin:  ${CREATE_ADMIN_OPTIONS}`,
    '',
    "The environment is the server's (DATA_DIR, DATABASE_URL, ...); PARLEY_DEBUG=1 adds stack traces to failures.",
    'Exit codes: 0 done, 1 failed, 2 wrong command line.',
  ].join('\n');
}

export function optionOf(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  if (index >= 0) return args[index + 1];
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

async function withStorage<T>(work: (storage: Storage, config: Config) => Promise<T>, options = { migrate: true }): Promise<T> {
  const config = loadConfig();
  const storage = openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    if (options.migrate) await migrateToLatest(storage.db);
    return await work(storage, config);
  } finally {
    await storage.close();
  }
}

/** Answers the new token's name. */
async function createAdminToken(tokens: TokensService, args: string[], print: Print): Promise<string> {
  const name = optionOf(args, 'name');
  if (!name || !/^[A-Za-z0-9._-]{1,40}$/.test(name)) throw new UsageError('admin-token create needs --name NAME (letters, digits, . _ -; at most 40)');
  const taken = (await tokens.listAdminTokens()).some((row) => row.name === name && row.revoked_at === null);
  if (taken && name !== ENV_ADMIN_TOKEN_NAME) {
    throw new OperatorError(`an admin token named ${name} already exists: revoke it first (parley admin-token revoke ${name}) or pick another name`);
  }
  print((await tokens.createAdminToken(name)).token);
  return name;
}

async function listAdminTokens(tokens: TokensService, print: Print): Promise<void> {
  for (const row of await tokens.listAdminTokens()) {
    const state =
      row.revoked_at !== null
        ? `revoked ${new Date(row.revoked_at).toISOString()}`
        : row.name === ENV_ADMIN_TOKEN_NAME
          ? `environment: accepted only while ${ENV_ADMIN_TOKEN_NAME} is set to it`
          : 'active';
    print(`${row.id}\t${row.name ?? ''}\t${row.user_id}\tcreated ${new Date(row.created_at).toISOString()}\t${state}`);
  }
}

/** Answers the id or name revoked. */
async function revokeAdminToken(tokens: TokensService, target: string | undefined, print: Print): Promise<string> {
  if (!target) throw new UsageError('admin-token revoke needs the token id or name: `parley admin-token list` shows them');
  const revoked = await tokens.revokeAdminToken(target);
  if (revoked === 0) throw new OperatorError(`no active admin token has id or name ${target}: \`parley admin-token list\` shows them`);
  print(`revoked ${revoked} token(s)`);
  return target;
}

async function adminToken(args: string[], print: Print): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    throw new UsageError(
      action === undefined ? 'admin-token needs an action: create, list or revoke' : `unknown admin-token action '${action}': use create, list or revoke`,
    );
  }
  await withStorage(async ({ db }) => {
    const clock = new AdjustableClock();
    const tokens = createTokensService({ db, clock });
    if (action === 'list') return listAdminTokens(tokens, print);
    const name = action === 'create' ? await createAdminToken(tokens, rest, print) : await revokeAdminToken(tokens, rest[0], print);
    await recordCliAction(db, clock.now(), `admin-token ${action}`, `adminToken.${action}`, [{ field: action === 'create' ? 'name' : 'token', id: name }]);
  });
}

function seedCount(args: string[], name: keyof typeof SEED_LIMITS): number {
  const { fallback, max } = SEED_LIMITS[name];
  const raw = optionOf(args, name);
  const value = raw === undefined ? fallback : Number(raw);
  if (raw === '' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new UsageError(`--${name} must be a whole number from 0 to ${max} (got '${raw ?? ''}'): for example --${name} ${Math.min(fallback, 50)}`);
  }
  return value;
}

function seedPassword(args: string[]): string {
  const given = optionOf(args, 'password');
  if (given === undefined) return randomBytes(12).toString('base64url');
  if (given.length < 8) throw new UsageError('--password must be at least 8 characters');
  return given;
}

/** What to do with freshly seeded data: where to look, with which credentials. */
function seedNextSteps(config: Config, runTag: string, users: number, password: string): string[] {
  const base = config.publicUrl;
  const firstUser = demoUserId(runTag, 0);
  const steps: [string, string][] = [
    ['start the server', `npm start   (serves ${base}; skip if it is running)`],
    ['an admin token', config.adminToken === null ? `TOKEN=$(npm run -s parley -- admin-token create --name demo-${runTag})` : 'TOKEN=$PARLEY_ADMIN_TOKEN'],
    ['the demo channels', `curl -s -X POST ${base}/api/v2/channels -H "Authorization: Bearer $TOKEN" -d 'tags[]=demo'`],
  ];
  const heading: string[] = [];
  if (users > 0) {
    heading.push(
      `Demo users ${firstUser} to ${demoUserId(runTag, users - 1)} sign in with the password ${password}`,
      '(shown once; each run gives its users a new one unless --password is given)',
    );
    steps.push(['a demo user', `curl -s "${base}/api/v2/users?search=${firstUser}" -H "Authorization: Bearer $TOKEN"`]);
    steps.push(['sign in as one', `open ${base}/login as ${firstUser}; for an app: npm run parley -- clients create --name demo --redirect-uri URI`]);
  }
  const width = Math.max(...steps.map(([what]) => what.length));
  return [...heading, 'Next:', ...steps.map(([what, how]) => `  ${what.padEnd(width)}  ${how}`)];
}

async function seed(args: string[], print: Print): Promise<void> {
  if (!args.includes('--demo')) throw new UsageError('seed needs --demo (it adds demo users, channels and messages to the configured database)');
  const counts = { users: seedCount(args, 'users'), channels: seedCount(args, 'channels'), messages: seedCount(args, 'messages') };
  const password = seedPassword(args);
  const runTag = newRunTag();
  const started = Date.now();
  const bar = createProgressBar(process.stderr);
  await withStorage(async (storage, config) => {
    const result = await seedDemo(storage, { ...counts, runTag, password, onProgress: bar.update });
    bar.done();
    print(`seeded ${result.users} users, ${result.channels} channels, ${result.messages} messages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const line of seedNextSteps(config, runTag, result.users, password)) print(line);
  });
}

async function migrate(print: Print): Promise<void> {
  const applied = await withStorage(({ db }) => migrateToLatest(db), { migrate: false });
  print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
}

/**
 * The server's code is loaded only by the commands that run it, so the others start fast and do not
 * depend on the HTTP layer.
 */
async function startServer(): Promise<void> {
  const { serve } = await import('../main.js');
  await serve(loadConfig());
}

/** Builds the whole app once and closes it: a quick "does this configuration start?". */
async function check(print: Print): Promise<void> {
  const { buildApp } = await import('../app.js');
  const { app } = await buildApp(loadConfig());
  await app.close();
  print('ok');
}

/**
 * `users erase` and `users export`: the whole container is built (as the server builds it) so an
 * erasure goes through the same services, then closed. The export is written chunk by chunk.
 */
async function users(args: string[], print: Print, write: (text: string) => void): Promise<void> {
  if (args[0] === 'create-admin') return createAdmin(args.slice(1), print, withStorage);
  const command = parseUsersCommand(args, optionOf);
  if (typeof command === 'string') throw new UsageError(command);
  const { buildContainer } = await import('../container.js');
  const { quietLogger } = await import('./quiet-logger.js');
  const container = await buildContainer(
    loadConfig(),
    quietLogger((line) => process.stderr.write(`${line}\n`)),
  );
  try {
    if (command.action === 'export') {
      for await (const chunk of await container.privacy.exports.open(command.userId)) write(chunk);
      write('\n');
      return;
    }
    // The audit entry commits with the erasure's first transaction.
    const note = await container.audit.note({ actor: { type: 'cli' }, operation: 'user.erase', method: 'CLI', route: 'users erase', requestId: null });
    const erased = await container.privacy.erasure.erase(command.userId, command.mode, note);
    print(
      `erased ${command.userId}: ${Object.entries(erased)
        .map(([what, count]) => `${count} ${what}`)
        .join(', ')}`,
    );
  } finally {
    await container.close();
  }
}

/** Runs one command; answers -1 when it keeps running (serve), else 0. Failures are thrown. */
async function dispatch(command: string | undefined, rest: string[], print: Print, write: (text: string) => void): Promise<number> {
  switch (command) {
    case 'serve':
      await startServer();
      return -1;
    case 'check':
      await check(print);
      return 0;
    case 'migrate':
      await migrate(print);
      return 0;
    case 'admin-token':
      await adminToken(rest, print);
      return 0;
    case 'clients':
      await runClientsCommand(rest, print);
      return 0;
    case 'seed':
      await seed(rest, print);
      return 0;
    case 'users':
      await users(rest, print, write);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      print(usage());
      return 0;
    default:
      throw new UsageError(`unknown command '${command}': \`parley help\` lists the commands`);
  }
}

/**
 * Runs `parley <args>` and answers the exit code (-1: the server keeps running). Output goes to
 * `print`; a failure is reported through `report` as one line (see formatFailure).
 */
export async function runCli(
  args: string[],
  print: Print = (line) => process.stdout.write(`${line}\n`),
  report: (text: string) => void = (text) => process.stderr.write(text),
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<number> {
  const [command, ...rest] = args;
  try {
    return await dispatch(command, rest, print, write);
  } catch (error) {
    report(formatFailure(error));
    return exitCodeOf(error);
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  runCli(process.argv.slice(2)).then((code) => {
    if (code >= 0) process.exit(code);
  });
}
