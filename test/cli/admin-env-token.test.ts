import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { databases, freshDatabase, linesOf, runParley } from './processes.js';

/**
 * PARLEY_ADMIN_TOKEN lives only while the variable is set: a start without it (or with another value)
 * retires the old value, and `admin-token revoke` refuses it, since the next start would bring it back.
 */
describe.each(databases)('the admin token of PARLEY_ADMIN_TOKEN on %s', (database) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;

  beforeAll(async () => {
    fresh = await freshDatabase(database);
  });
  afterAll(async () => {
    await fresh.close();
  });

  /** Starts the app on this file's database with `adminToken` in the environment (or none), answers the status of each token. */
  async function statusesAfterStart(adminToken: string | null, tokens: string[]): Promise<number[]> {
    const { app } = await buildApp(loadConfig({ ...fresh.env, LOG_LEVEL: 'silent', ...(adminToken ? { PARLEY_ADMIN_TOKEN: adminToken } : {}) }));
    try {
      const statuses: number[] = [];
      for (const token of tokens)
        statuses.push((await app.inject({ method: 'GET', url: '/api/v2/roles', headers: { authorization: `Bearer ${token}` } })).statusCode);
      return statuses;
    } finally {
      await app.close();
    }
  }

  it('is accepted only by a start with the variable set to it', async () => {
    const first = randomBytes(32).toString('hex');
    const second = randomBytes(32).toString('hex');
    expect(await statusesAfterStart(first, [first])).toEqual([200]);
    expect(await statusesAfterStart(null, [first])).toEqual([401]);
    expect(await statusesAfterStart(first, [first])).toEqual([200]);
    expect(await statusesAfterStart(second, [first, second])).toEqual([401, 200]);
  });

  it('cannot be revoked or created by hand: the command says to unset the variable, and exits 2', async () => {
    const token = randomBytes(32).toString('hex');
    expect(await statusesAfterStart(token, [token])).toEqual([200]);
    const listed = await runParley(['admin-token', 'list'], fresh.env);
    const row = linesOf(listed.stdout).find((line) => line.split('\t')[1] === 'PARLEY_ADMIN_TOKEN') as string;
    expect(row).toContain('accepted only while PARLEY_ADMIN_TOKEN is set');

    const [byName, byId, created] = await Promise.all([
      runParley(['admin-token', 'revoke', 'PARLEY_ADMIN_TOKEN'], fresh.env),
      runParley(['admin-token', 'revoke', row.split('\t')[0] as string], fresh.env),
      runParley(['admin-token', 'create', '--name', 'PARLEY_ADMIN_TOKEN'], fresh.env),
    ]);
    for (const refused of [byName, byId]) {
      expect(refused.code).toBe(2);
      expect(linesOf(refused.stderr)).toEqual([
        expect.stringMatching(/^parley: PARLEY_ADMIN_TOKEN comes from the environment and cannot be revoked here: unset PARLEY_ADMIN_TOKEN/),
      ]);
      expect(refused.stdout).not.toContain('revoked');
    }
    expect(created.code).toBe(2);
    expect(linesOf(created.stderr)).toEqual([
      expect.stringMatching(/^parley: the name PARLEY_ADMIN_TOKEN is kept for the token of the PARLEY_ADMIN_TOKEN variable/),
    ]);
    // Refused, so still the environment's token.
    expect(await statusesAfterStart(token, [token])).toEqual([200]);
  }, 120_000);
});
