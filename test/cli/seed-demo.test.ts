import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { databases, type Finished, freshDatabase, runParley } from './processes.js';

/** Cookies a response sets, as a Cookie header. */
function cookiesOf(response: LightMyRequestResponse): string {
  return (response.cookies as { name: string; value: string }[]).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}

/** The sign-in page's form, as a browser submits it. */
async function signIn(app: BuiltApp['app'], username: string, password: string): Promise<number> {
  const page = await app.inject({ method: 'GET', url: '/login' });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
  const form = new URLSearchParams({ csrf, username, password }).toString();
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookiesOf(page), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  });
  return response.statusCode;
}

/**
 * `parley seed --demo` leaves data one can look at: demo users sign in with the password it prints
 * once, and it prints the next steps, whose example request works.
 */
describe.each(databases)('parley seed --demo on %s', (database) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let seeded: Finished;
  let built: BuiltApp;
  const adminToken = randomBytes(32).toString('hex');

  beforeAll(async () => {
    fresh = await freshDatabase(database);
    seeded = await runParley(['seed', '--demo', '--users', '3', '--channels', '2', '--messages', '10'], fresh.env);
    built = await buildApp(loadConfig({ ...fresh.env, LOG_LEVEL: 'silent', PARLEY_ADMIN_TOKEN: adminToken }));
  }, 120_000);
  afterAll(async () => {
    await built?.app.close();
    await fresh.close();
  });

  it('prints the demo password once, and the demo users sign in with it', async () => {
    expect(seeded.code).toBe(0);
    const match = /Demo users (demo-\w+-u0) to demo-\w+-u2 sign in with the password (\S+)/.exec(seeded.stdout);
    expect(match, seeded.stdout).not.toBeNull();
    const [, username, password] = match as RegExpExecArray;
    expect(await signIn(built.app, username as string, password as string)).toBe(303);
    expect(await signIn(built.app, username as string, `${password}-wrong`)).not.toBe(303);
  });

  it('prints what to do next: start the server, get an admin token, and a request that lists the demo channels', async () => {
    expect(seeded.stdout).toContain('npm start');
    expect(seeded.stdout).toMatch(/admin-token create --name demo-\w+/);
    const curl = /curl -s -X POST (\S+)\/api\/v2\/channels -H "Authorization: Bearer \$TOKEN" -d '([^']+)'/.exec(seeded.stdout);
    expect(curl, seeded.stdout).not.toBeNull();
    // The printed request, as curl sends it, answers the two demo channels.
    const listed = await built.app.inject({
      method: 'POST',
      url: '/api/v2/channels',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: (curl as RegExpExecArray)[2] as string,
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().results).toHaveLength(2);
  });
});
