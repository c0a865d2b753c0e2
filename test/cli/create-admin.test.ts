import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { consoleRedirectUri, signInWithPkce } from '../surfaces/console/console-signin.js';
import { databases, type Finished, freshDatabase, linesOf, runParley } from './processes.js';

/** What `npm start` prints before it serves, then stopped with SIGTERM. */
function startupLines(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PARLEY_ADMIN_TOKEN: '', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // The banner is written at once, after the server listens.
      if (stdout.includes('admin token')) child.kill('SIGTERM');
    });
    child.on('close', () => {
      clearTimeout(timer);
      if (stdout.includes('Parley is serving')) resolve(stdout);
      else reject(new Error(`the server did not start: ${stdout}${stderr}`));
    });
  });
}

/** `parley <args>` with `input` on its stdin. */
function runParleyWithStdin(args: string[], env: Record<string, string>, input: string): Promise<Finished> {
  const child = spawn(process.execPath, ['bin/parley.mjs', ...args], {
    env: { ...process.env, PARLEY_ADMIN_TOKEN: '', DATABASE_URL: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

/**
 * The first run as an operator meets it: the server says there is no network admin yet and how to make
 * one, `parley users create-admin` makes one, who then signs in to the console and holds every right.
 */
describe.each(databases)('parley users create-admin on %s', { timeout: 180_000 }, (database) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;

  beforeAll(async () => {
    fresh = await freshDatabase(database);
  });
  afterAll(async () => {
    await fresh.close();
  });

  it('starts telling how to make a network admin, and where the console is', async () => {
    const banner = await startupLines(fresh.env);
    expect(banner).toMatch(/ {2}console {8}http:\/\/127\.0\.0\.1:\d+\/console\n/);
    expect(banner).toMatch(
      /No network admin yet: run `npm run parley -- users create-admin --username admin`, then sign in to the console at http:\/\/127\.0\.0\.1:\d+\/console/,
    );
  });

  it('creates a network admin with the password given, and says where to sign in', async () => {
    const result = await runParley(['users', 'create-admin', '--username', 'root', '--password', 'root password 1', '--display-name', 'Root'], fresh.env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(linesOf(result.stdout)).toEqual(['created network admin root', 'sign in at http://127.0.0.1:8080/console']);

    const again = await runParley(['users', 'create-admin', '--username', 'root', '--password', 'root password 2'], fresh.env);
    expect(again.code).toBe(1);
    expect(linesOf(again.stderr)).toEqual(['parley: The username or user id root is taken by a network admin: pick another username']);
  });

  it('reads the password from stdin, or makes one and prints it once', async () => {
    const piped = await runParleyWithStdin(['users', 'create-admin', '--username', 'piped', '--password-stdin'], fresh.env, 'piped password 1\n');
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toContain('piped password 1');

    const made = await runParley(['users', 'create-admin', '--username', 'made'], fresh.env);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^password {2}[A-Za-z0-9_-]{16} {3}\(shown once: keep it\)$/m);
  });

  it('refuses a wrong command line with exit 2 and one line', async () => {
    const cases: [string[], RegExp][] = [
      [['--password', 'long enough 1'], /needs --username NAME/],
      [['--username', 'x', '--password', 'long enough 1', '--password-stdin'], /not both/],
      [['--username', 'x', '--password', 'short'], /at least 8 characters/],
      [['--username', 'a/b', '--password', 'long enough 1'], /The username must be 1 to 50 letters/],
      [['--username', 'x', '--pasword', 'long enough 1'], /unknown option --pasword/],
    ];
    for (const [args, message] of cases) {
      const result = await runParley(['users', 'create-admin', ...args], fresh.env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(linesOf(result.stderr), args.join(' ')).toEqual([expect.stringMatching(message)]);
    }
  });

  it('makes someone who signs in to the console with every right, and whose creation is in the audit trail', async () => {
    const made = await runParley(['users', 'create-admin', '--username', 'second'], fresh.env);
    const password = /^password {2}(\S+)/m.exec(made.stdout)?.[1] as string;
    const config = loadConfig({ ...fresh.env, LOG_LEVEL: 'silent' });
    const { app } = await buildApp(config);
    try {
      for (const [username, secret] of [
        ['root', 'root password 1'],
        ['piped', 'piped password 1'],
        ['second', password],
      ] as const) {
        const signedIn = await signInWithPkce(app, { username, password: secret, redirectUri: consoleRedirectUri(config.publicUrl) });
        expect(signedIn.status, `${username}: ${signedIn.body}`).toBe(200);
        const headers = { authorization: `Bearer ${signedIn.accessToken}` };
        const me = await app.inject({ method: 'GET', url: '/api/v2/me', headers });
        expect(me.json()).toMatchObject({ kind: 'user', userId: username, networkAdmin: true });
        expect((await app.inject({ method: 'GET', url: '/api/v2/users', headers })).statusCode).toBe(200);
      }
      const root = await signInWithPkce(app, { username: 'root', password: 'root password 1', redirectUri: consoleRedirectUri(config.publicUrl) });
      const audit = await app.inject({ method: 'GET', url: '/api/v2/audit', headers: { authorization: `Bearer ${root.accessToken}` } });
      expect(audit.statusCode).toBe(200);
      expect(audit.body).toContain('user.createAdmin');
    } finally {
      await app.close();
    }
  });

  it('starts without the hint once a network admin exists', async () => {
    const banner = await startupLines(fresh.env);
    expect(banner).toContain('Parley is serving');
    expect(banner).not.toContain('No network admin yet');
  });

  it("keeps the console's client, which the server registered, from `clients delete`", async () => {
    const listed = await runParley(['clients', 'list'], fresh.env);
    expect(listed.stdout).toMatch(/^parley-console\tParley console\tpublic\tRS256\thttp:\/\/127\.0\.0\.1:\d+\/console\/callback$/m);
    const deleted = await runParley(['clients', 'delete', 'parley-console'], fresh.env);
    expect(deleted.code).toBe(2);
    expect(linesOf(deleted.stderr)).toEqual([expect.stringMatching(/^parley: parley-console is the admin console's sign-in client.*cannot be deleted/)]);
  });

  it('lists the command in help', async () => {
    const help = await runParley(['help'], fresh.env);
    expect(linesOf(help.stdout).some((line) => /^ {2}users create-admin --username NAME {2,}\S+/.test(line))).toBe(true);
  });
});
