import { buildApp } from '../app.js';
import { ConfigError, loadConfig } from '../config.js';
import { serve } from '../main.js';
import { createTokensService } from '../modules/tokens/tokens.service.js';
import { AdjustableClock } from '../clock.js';
import { openStorage } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createProgressBar } from './progress.js';
import { seedDemo } from './seed.js';

/**
 * The `parley` command. Each sub-command reads the same configuration as the server, so it acts on
 * the database the server uses (SQLite in DATA_DIR, or DATABASE_URL).
 */
const USAGE = `Usage: parley <command>

  serve                              start the server (same as npm start)
  migrate                            apply pending database migrations
  admin-token create --name NAME     print a new admin token (shown once)
  admin-token list                   list admin tokens (never the tokens themselves)
  admin-token revoke ID_OR_NAME      revoke an admin token
  seed --demo [--users N --channels N --messages N]
                                     fill the database with demo data (default 200 / 20 / 10,000)
  check                              build the app once with this configuration, then exit
`;

export function optionOf(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  if (index >= 0) return args[index + 1];
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

async function withStorage<T>(work: (storage: ReturnType<typeof openStorage>) => Promise<T>, options = { migrate: true }): Promise<T> {
  const config = loadConfig();
  const storage = openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    if (options.migrate) await migrateToLatest(storage.db);
    return await work(storage);
  } finally {
    await storage.close();
  }
}

async function adminToken(args: string[], print: (line: string) => void): Promise<number> {
  const [action, ...rest] = args;
  return withStorage(async ({ db }) => {
    const tokens = createTokensService({ db, clock: new AdjustableClock() });
    if (action === 'create') {
      const name = optionOf(rest, 'name');
      if (!name || !/^[A-Za-z0-9._-]{1,40}$/.test(name)) {
        print('admin-token create needs --name NAME (letters, digits, . _ -; at most 40).');
        return 2;
      }
      const issued = await tokens.createAdminToken(name);
      print(issued.token);
      return 0;
    }
    if (action === 'list') {
      for (const row of await tokens.listAdminTokens()) {
        const state = row.revoked_at === null ? 'active' : `revoked ${new Date(row.revoked_at).toISOString()}`;
        print(`${row.id}\t${row.name ?? ''}\t${row.user_id}\tcreated ${new Date(row.created_at).toISOString()}\t${state}`);
      }
      return 0;
    }
    if (action === 'revoke') {
      const target = rest[0];
      if (!target) {
        print('admin-token revoke needs the token id or name.');
        return 2;
      }
      const revoked = await tokens.revokeAdminToken(target);
      print(revoked > 0 ? `revoked ${revoked} token(s)` : `no active admin token has id or name ${target}`);
      return revoked > 0 ? 0 : 1;
    }
    print(USAGE);
    return 2;
  });
}

export async function runCli(args: string[], print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'serve':
      await serve(loadConfig());
      return -1;
    case 'migrate': {
      const applied = await withStorage(({ db }) => migrateToLatest(db), { migrate: false });
      print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    case 'admin-token':
      return adminToken(rest, print);
    case 'seed': {
      if (!rest.includes('--demo')) {
        print('seed needs --demo (it adds demo users, channels and messages to the configured database).');
        return 2;
      }
      const count = (name: string, fallback: number, max: number) => {
        const raw = optionOf(rest, name);
        const value = raw === undefined ? fallback : Number(raw);
        if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`--${name} must be a whole number from 0 to ${max}.`);
        return value;
      };
      const options = { users: count('users', 200, 1_000_000), channels: count('channels', 20, 100_000), messages: count('messages', 10_000, 100_000_000) };
      const started = Date.now();
      const bar = createProgressBar(process.stderr);
      const result = await withStorage((storage) => seedDemo(storage, { ...options, onProgress: bar.update }), { migrate: true });
      bar.done();
      print(`seeded ${result.users} users, ${result.channels} channels, ${result.messages} messages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return 0;
    }
    case 'check': {
      // Builds the whole app once and closes it: a quick "does this configuration start?".
      const { app } = await buildApp(loadConfig());
      await app.close();
      print('ok');
      return 0;
    }
    default:
      print(USAGE);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  runCli(process.argv.slice(2))
    .then((code) => {
      if (code >= 0) process.exit(code);
    })
    .catch((error: unknown) => {
      const message = error instanceof ConfigError ? `Parley cannot start: ${error.message}` : error instanceof Error ? error.message : String(error);
      process.stderr.write(`${message}\n`);
      process.exit(1);
    });
}
