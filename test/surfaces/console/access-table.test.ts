import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../../src/http/error-handler.js';
import type { TypedApp } from '../../../src/http/typed-app.js';
import { PERMISSIONS } from '../../../src/modules/roles/permissions.js';
import { accessOf, authorizeConsoleRoute, installConsoleGuards, moderators } from '../../../src/surfaces/admin/console-access.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Who may call each admin route, as the routes declare it (`config: moderators(...)` or
 * `networkAdmins(...)`): each registered route says so on purpose. A route that declares nothing fails
 * here, so someone decides who may call it; at run time such a route stays with network admins.
 */
describe("the admin routes' access declarations", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const adminRoutes = () => t.routes.filter((route) => route.url.startsWith('/api/v2/') && route.method !== 'HEAD');
  const declared = (method: string, url: string) => {
    const found = t.routes.find((route) => route.method === (method === 'HEAD' ? 'GET' : method) && route.url === url);
    return found === undefined ? null : accessOf(found.config);
  };

  it('are made by every registered admin route', () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThan(50);
    const undeclared = routes.filter((route) => declared(route.method, route.url) === null).map((route) => `${route.method} ${route.url}`);
    expect(undeclared, 'declare config: moderators(...) or networkAdmins(...) on these routes').toEqual([]);
  });

  it('keep what only a network admin may do to network admins', () => {
    const moderatorsMay = (method: string, url: string) => (declared(method, url)?.anyOf.length ?? 0) > 0;
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
      ['POST', '/api/v2/users/:userId/password-reset'],
      ['GET', '/api/v2/sessions'],
      ['GET', '/api/v2/bots/:userId/webhooks'],
    ] as const) {
      expect(moderatorsMay(method, url), `${method} ${url}`).toBe(false);
    }
    expect(declared('GET', '/api/v2/moderation/messages')?.anyOf).toEqual(['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL']);
    expect(declared('HEAD', '/api/v2/users')).toEqual(declared('GET', '/api/v2/users'));
  });

  it('name the people a route acts on, so no moderator acts on a network admin through it', () => {
    const actsOnPeople = adminRoutes()
      .filter((route) => /userIds|userId/.test(JSON.stringify(route.schema.body ?? {})) || route.url.includes(':userId'))
      .filter((route) => (declared(route.method, route.url)?.anyOf.length ?? 0) > 0)
      .filter((route) => !route.url.startsWith('/api/v2/moderation/'))
      // Reads: a query by member lists channels, it changes nobody.
      .filter((route) => route.method !== 'GET' && `${route.method} ${route.url}` !== 'POST /api/v2/channels')
      .filter((route) => !declared(route.method, route.url)?.targets.some((target) => target === 'users' || target === 'userWrite'))
      .map((route) => `${route.method} ${route.url}`);
    expect(actsOnPeople).toEqual([]);
  });
});

describe('a route that declares no access', () => {
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
    installConsoleGuards(app, { findUser: async () => undefined, findChannel: async () => undefined, channelOfMessage: async () => undefined });
    app.get('/api/v2/unlisted', async () => ({ reached: true }));
    app.get('/api/v2/users', { config: moderators(['EDIT_USER'], 'listing users') }, async () => ({ reached: true }));
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
