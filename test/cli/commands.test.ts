import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runParley, tempDataDir } from './processes.js';

/**
 * `parley` as a script calls it: every command reachable and listed, exit codes a script can test
 * (0 done, 1 failed, 2 wrong command line), and a failure told in one line on stderr.
 */
const STACK_LINE = /^\s+at /m;

describe('the parley command line', { timeout: 120_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dataDir = tempDataDir();
    env = { DATA_DIR: dataDir };
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('help lists every command, each with a one-line description', async () => {
    const result = await runParley(['help'], env);
    expect(result.code).toBe(0);
    const commands = [
      'serve',
      'check',
      'migrate',
      'admin-token create',
      'admin-token list',
      'admin-token revoke',
      'clients create',
      'clients list',
      'clients delete',
      'seed --demo',
      'users erase',
      'users export',
      'help',
    ];
    for (const command of commands) {
      const line = linesOf(result.stdout).find((text) => text.startsWith(`  ${command}`));
      expect(line, `help has no line for ${command}`).toBeDefined();
      // Synopsis, a gap of two spaces or more, then a description of a few words.
      expect(line).toMatch(/^ {2}\S.*\S {2,}\S+( \S+){2,}/);
    }
  });

  it('names an unknown command, exits 2, and prints one line on stderr', async () => {
    const result = await runParley(['frobnicate'], env);
    expect(result.code).toBe(2);
    expect(linesOf(result.stderr)).toEqual([expect.stringMatching(/^parley: unknown command 'frobnicate'.*parley help/)]);
    expect(result.stdout).toBe('');
  });

  it('runs the clients commands: create prints the id and secret, list shows it, delete removes it', async () => {
    const created = await runParley(['clients', 'create', '--name', 'web', '--redirect-uri', 'https://web.example/cb'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const clientId = /client_id\s+(\S+)/.exec(created.stdout)?.[1] as string;
    expect(/client_secret\s+(\S+)/.exec(created.stdout)?.[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const listed = await runParley(['clients', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${clientId}\tweb\tconfidential`);

    expect((await runParley(['clients', 'delete', clientId], env)).code).toBe(0);
    const again = await runParley(['clients', 'delete', clientId], env);
    expect(again.code).toBe(1);
    expect(linesOf(again.stderr)).toEqual([expect.stringMatching(new RegExp(`^parley: no client has id ${clientId}`))]);
  });

  it('refuses clients create without a redirect URI as a usage error', async () => {
    const result = await runParley(['clients', 'create', '--name', 'web'], env);
    expect(result.code).toBe(2);
    expect(linesOf(result.stderr)).toEqual([expect.stringMatching(/^parley: clients create needs --name NAME and at least one --redirect-uri URI/)]);
  });

  it('a taken admin token name fails with exit 1 and one line, without a stack trace', async () => {
    expect((await runParley(['admin-token', 'create', '--name', 'ops'], env)).code).toBe(0);
    const result = await runParley(['admin-token', 'create', '--name', 'ops'], env);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(/^parley: an admin token named ops already exists: revoke it first \(parley admin-token revoke ops\)/),
    ]);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('records admin-token create and revoke in the audit trail under the actor cli, never the token', async () => {
    const created = await runParley(['admin-token', 'create', '--name', 'audited'], env);
    expect(created.code).toBe(0);
    expect((await runParley(['admin-token', 'revoke', 'audited'], env)).code).toBe(0);
    const database = new Database(path.join(dataDir, 'parley.sqlite'), { readonly: true });
    try {
      const rows = database
        .prepare("select actor, operation, route, targets from audit_log where actor_type = 'cli' and targets like '%audited%' order by at")
        .all();
      expect(rows).toEqual([
        { actor: 'cli', operation: 'adminToken.create', route: 'admin-token create', targets: '[["name","audited"]]' },
        { actor: 'cli', operation: 'adminToken.revoke', route: 'admin-token revoke', targets: '[["token","audited"]]' },
      ]);
      expect(JSON.stringify(database.prepare('select * from audit_log').all())).not.toContain(created.stdout.trim());
    } finally {
      database.close();
    }
  });

  it('prints the stack trace of a failure with PARLEY_DEBUG=1', async () => {
    const result = await runParley(['admin-token', 'revoke', 'nobody'], { ...env, PARLEY_DEBUG: '1' });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)[0]).toMatch(/^parley: no active admin token has id or name nobody/);
    expect(result.stderr).toMatch(STACK_LINE);
  });

  it('a malformed seed count is a usage error: exit 2, one line that names the option', async () => {
    const result = await runParley(['seed', '--demo', '--users', 'abc'], env);
    expect(result.code).toBe(2);
    expect(linesOf(result.stderr)).toEqual([expect.stringMatching(/^parley: --users must be a whole number from 0 to 1000000 \(got 'abc'\)/)]);
  });

  it('a missing admin-token name and an unknown action are usage errors', async () => {
    const missing = await runParley(['admin-token', 'create'], env);
    expect(missing.code).toBe(2);
    expect(linesOf(missing.stderr)).toEqual([expect.stringMatching(/^parley: admin-token create needs --name NAME/)]);
    const unknown = await runParley(['admin-token', 'rotate'], env);
    expect(unknown.code).toBe(2);
    expect(linesOf(unknown.stderr)).toEqual([expect.stringMatching(/^parley: unknown admin-token action 'rotate'/)]);
  });
});
