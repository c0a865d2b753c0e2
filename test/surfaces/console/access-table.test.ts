import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../../src/http/error-handler.js';
import type { TypedApp } from '../../../src/http/typed-app.js';
import { PERMISSIONS } from '../../../src/modules/roles/permissions.js';
import { authorizeConsoleRoute, CONSOLE_RULES, consoleRuleOf, installConsoleGuards } from '../../../src/surfaces/admin/console-access.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The console's access table against the routes the admin API really has: each one is decided by a row
 * on purpose. A route without a row fails here, so someone says who may call it; at run time the
 * table's default keeps such a route to network admins.
 */
describe('the console access table', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const adminRoutes = () => t.routes.filter((route) => route.url.startsWith('/api/v2/') && route.method !== 'HEAD');

  it('names every registered admin route', () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThan(50);
    const unnamed = routes.filter((route) => consoleRuleOf(route.method, route.url) === null).map((route) => `${route.method} ${route.url}`);
    expect(unnamed, 'add these routes to CONSOLE_RULES in src/surfaces/admin/console-access.ts').toEqual([]);
  });

  it('has no row for a route that does not exist', () => {
    const registered = new Set(adminRoutes().map((route) => `${route.method} ${route.url}`));
    const stale = CONSOLE_RULES.filter((rule) => !rule.route.endsWith('*') && !registered.has(rule.route)).map((rule) => rule.route);
    expect(stale).toEqual([]);
  });

  it('keeps what only a network admin may do to network admins', () => {
    const moderatorsMay = (method: string, url: string) => (consoleRuleOf(method, url)?.anyOf.length ?? 0) > 0;
    for (const [method, url] of [
      ['PUT', '/api/v2/roles'],
      ['POST', '/api/v2/blacklist/records'],
      ['POST', '/api/v2/oauth/clients'],
      ['DELETE', '/api/v2/oauth/clients/:clientId'],
      ['POST', '/api/v2/bots'],
      ['POST', '/api/v2/admin-tokens'],
      ['GET', '/api/v2/audit'],
      ['POST', '/api/v2/retention/run'],
      ['DELETE', '/api/v2/users/:userId'],
      ['GET', '/api/v2/users/:userId/export'],
      ['POST', '/api/v2/users/:userId/tokens'],
      ['GET', '/api/v2/bots/:userId/webhooks'],
    ] as const) {
      expect(moderatorsMay(method, url), `${method} ${url}`).toBe(false);
    }
    expect(consoleRuleOf('GET', '/api/v2/moderation/queue')?.anyOf).toEqual([
      'DELETE_MESSAGE',
      'BAN_USER',
      'BAN_USER_FROM_CHANNEL',
      'MUTE_USER_INSIDE_CHANNEL',
    ]);
    expect(consoleRuleOf('HEAD', '/api/v2/users')).toEqual(consoleRuleOf('GET', '/api/v2/users'));
  });
});

describe('a route the console access table does not name', () => {
  let app: TypedApp;

  beforeAll(async () => {
    app = Fastify() as unknown as TypedApp;
    installErrorHandling(app);
    app.decorateRequest('adminActor', null);
    // A moderator holding every permission, admitted as the admin surface's authentication admits them.
    app.addHook('onRequest', (request, _reply, done) => {
      request.adminActor = { kind: 'user', userId: 'mod', networkAdmin: false, permissions: new Set(PERMISSIONS) };
      try {
        authorizeConsoleRoute(request);
      } catch (error) {
        return done(error as Error);
      }
      done();
    });
    installConsoleGuards(app, { findUser: async () => undefined });
    app.get('/api/v2/unlisted', async () => ({ reached: true }));
    app.get('/api/v2/users', async () => ({ reached: true }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('is closed to a moderator whatever they hold, with a sentence saying who may', async () => {
    const unlisted = await app.inject({ method: 'GET', url: '/api/v2/unlisted' });
    expect(unlisted.statusCode).toBe(403);
    expect(unlisted.json()).toMatchObject({ code: 400301, message: 'Only a network admin can use this route.' });
    expect((await app.inject({ method: 'GET', url: '/api/v2/users' })).json()).toEqual({ reached: true });
  });
});
