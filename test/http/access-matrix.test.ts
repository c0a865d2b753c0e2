import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkAdmins } from '../../src/modules/identity/network-admins.js';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { createBot } from '../helpers/bot.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from '../surfaces/console/console-signin.js';

/**
 * Who may call what: every admin, client, bot and tray route times every kind of actor, against the
 * tables below (what the policy should answer, written out, not read from the routes), on each
 * database. Requests carry no body and name ids that do not exist: what is checked is whether the
 * actor got past the door and the route's access policy, not what the route then does.
 */
type Actor = 'adminToken' | 'networkAdmin' | 'deleteModerator' | 'channelModerator' | 'member' | 'bot';
const ACTORS: Actor[] = ['adminToken', 'networkAdmin', 'deleteModerator', 'channelModerator', 'member', 'bot'];

/** What moderators hold: one permission each, so the table's lists decide. */
const HELD: Partial<Record<Actor, string>> = { deleteModerator: 'DELETE_MESSAGE', channelModerator: 'EDIT_CHANNEL' };

const NETWORK_ADMINS: readonly string[] = [];
/** Every console user: each holds some permission, or they would not be let in. */
const ANY = ['*'];

/** The admin routes, and the permissions of which a moderator needs one (none: network admins only). */
const ADMIN_ROUTES: Record<string, readonly string[]> = {
  'DELETE /api/v2/admin-tokens/:tokenId': NETWORK_ADMINS,
  'DELETE /api/v2/blacklist/records': NETWORK_ADMINS,
  'DELETE /api/v2/channel/:channelId/users': ['EDIT_CHANNEL', 'REMOVE_CHANNEL_USER'],
  'DELETE /api/v2/message/:messageId': ['DELETE_MESSAGE'],
  'DELETE /api/v2/oauth/clients/:clientId': NETWORK_ADMINS,
  'DELETE /api/v2/reactions': NETWORK_ADMINS,
  'DELETE /api/v2/roles/:publicId': NETWORK_ADMINS,
  'DELETE /api/v2/users/:userId': NETWORK_ADMINS,
  'DELETE /api/v2/users/:userId/flags': ['EDIT_USER'],
  'DELETE /api/v2/users/:userId/sessions/:sessionId': NETWORK_ADMINS,
  'DELETE /api/v2/users/:userId/tokens/:tokenId': NETWORK_ADMINS,
  'DELETE /api/v2/whitelist/records': NETWORK_ADMINS,
  'GET /api/v2/admin-tokens': NETWORK_ADMINS,
  'GET /api/v2/audit': NETWORK_ADMINS,
  'GET /api/v2/blacklist/records': NETWORK_ADMINS,
  'GET /api/v2/bots': NETWORK_ADMINS,
  'GET /api/v2/bots/:userId/webhooks': NETWORK_ADMINS,
  'GET /api/v2/channel/:channelId': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/channel/:channelId/retention': NETWORK_ADMINS,
  'GET /api/v2/channel/:channelId/users': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/me': ANY,
  'GET /api/v2/message/:messageId': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/messages/:messageId/files': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/messages/:messageId/images': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/moderation/messages': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'GET /api/v2/moderation/reviews': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'GET /api/v2/moderation/summary': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'GET /api/v2/moderation/users': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'GET /api/v2/oauth/clients': NETWORK_ADMINS,
  'GET /api/v2/oauth/clients/:clientId': NETWORK_ADMINS,
  'GET /api/v2/reactions': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/reactions/messages/most': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'GET /api/v2/roles': NETWORK_ADMINS,
  'GET /api/v2/sessions': NETWORK_ADMINS,
  'GET /api/v2/stats': NETWORK_ADMINS,
  'GET /api/v2/stats/daily': ANY,
  'GET /api/v2/status': NETWORK_ADMINS,
  'GET /api/v2/users': ['EDIT_USER', 'BAN_USER'],
  'GET /api/v2/users/:userId': ['EDIT_USER', 'BAN_USER'],
  'GET /api/v2/users/:userId/export': NETWORK_ADMINS,
  'GET /api/v2/users/:userId/flags': ['EDIT_USER'],
  'GET /api/v2/users/:userId/messages': ['EDIT_USER'],
  'GET /api/v2/users/:userId/sessions': NETWORK_ADMINS,
  'GET /api/v2/users/:userId/tokens': NETWORK_ADMINS,
  'GET /api/v2/users/:userId/tray': NETWORK_ADMINS,
  'GET /api/v2/whitelist/records': NETWORK_ADMINS,
  'POST /api/v2/admin-tokens': NETWORK_ADMINS,
  'POST /api/v2/blacklist/records': NETWORK_ADMINS,
  'POST /api/v2/bots': NETWORK_ADMINS,
  'POST /api/v2/channel': ['EDIT_CHANNEL'],
  'POST /api/v2/channel/:channelId/close': ['EDIT_CHANNEL', 'CLOSE_CHANNEL'],
  'POST /api/v2/channel/:channelId/displayName': ['EDIT_CHANNEL'],
  'POST /api/v2/channel/:channelId/users': ['EDIT_CHANNEL', 'ADD_CHANNEL_USER'],
  'POST /api/v2/channel/:channelId/users/ban': ['EDIT_CHANNEL', 'BAN_USER_FROM_CHANNEL'],
  'POST /api/v2/channel/:channelId/users/unban': ['EDIT_CHANNEL', 'BAN_USER_FROM_CHANNEL'],
  'POST /api/v2/channel/displayName': ['EDIT_CHANNEL'],
  'POST /api/v2/channels': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'POST /api/v2/channels/:channelId/close': ['EDIT_CHANNEL', 'CLOSE_CHANNEL'],
  'POST /api/v2/message': NETWORK_ADMINS,
  'POST /api/v2/messages': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL', 'EDIT_CHANNEL'],
  'POST /api/v2/messages/files': NETWORK_ADMINS,
  'POST /api/v2/messages/images': NETWORK_ADMINS,
  'POST /api/v2/moderation/messages/:messageId/review': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'POST /api/v2/moderation/users/:userId/review': ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'POST /api/v2/oauth/clients': NETWORK_ADMINS,
  'POST /api/v2/reactions': NETWORK_ADMINS,
  'POST /api/v2/retention/run': NETWORK_ADMINS,
  'POST /api/v2/rules/test': NETWORK_ADMINS,
  'POST /api/v2/users/:userId/password-reset': NETWORK_ADMINS,
  'POST /api/v2/users/:userId/signout': NETWORK_ADMINS,
  'POST /api/v2/users/:userId/tokens': NETWORK_ADMINS,
  'POST /api/v2/users/ban': ['BAN_USER'],
  'POST /api/v2/users/unban': ['BAN_USER'],
  'POST /api/v2/whitelist/records': NETWORK_ADMINS,
  'PUT /api/v2/blacklist/records/:ruleId': NETWORK_ADMINS,
  'PUT /api/v2/bots/:userId': NETWORK_ADMINS,
  'PUT /api/v2/channel/:channelId': ['EDIT_CHANNEL'],
  'PUT /api/v2/channel/:channelId/mute': ['EDIT_CHANNEL', 'MUTE_CHANNEL'],
  'PUT /api/v2/channel/:channelId/retention': NETWORK_ADMINS,
  'PUT /api/v2/channel/:channelId/users/mute': ['EDIT_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'],
  'PUT /api/v2/oauth/clients/:clientId': NETWORK_ADMINS,
  'PUT /api/v2/roles': NETWORK_ADMINS,
  'PUT /api/v2/test-clock': NETWORK_ADMINS,
  'PUT /api/v2/users': ['EDIT_USER'],
  'PUT /api/v2/users/:userId/avatar': ['EDIT_USER'],
  'PUT /api/v2/whitelist/records/:ruleId': NETWORK_ADMINS,
};

/** Who passes each other surface. */
const SURFACES: Array<{ prefix: string; passes: readonly Actor[] }> = [
  { prefix: '/client/v1/', passes: ['networkAdmin', 'deleteModerator', 'channelModerator', 'member'] },
  { prefix: '/notifications/', passes: ['networkAdmin', 'deleteModerator', 'channelModerator', 'member'] },
  { prefix: '/bot/v1/', passes: ['bot'] },
];
const OWN_RULES = [/^\/client\/v1\/stream$/];

/** The codes of a refusal at the door or by a route's access policy. */
const REFUSALS = new Set([400100, 400300, 400301, 400312]);

function adminPasses(actor: Actor, needs: readonly string[]): boolean {
  if (actor === 'adminToken' || actor === 'networkAdmin') return true;
  const held = HELD[actor];
  if (held === undefined) return false;
  return needs === ANY || needs.includes(held);
}

describe.each(testDatabases)('the access matrix, on %s', (database) => {
  let t: TestApp;
  const tokens: Partial<Record<Actor, string>> = {};
  const password = 'matrix password 1';

  const consoleToken = async (username: string): Promise<string> => {
    const signedIn = await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) });
    expect(signedIn.status, signedIn.body).toBe(200);
    return signedIn.accessToken as string;
  };

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
    const admin = adminClient(t);
    tokens.adminToken = t.adminToken;
    const root = t.uniqueId('root');
    await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username: root, password, displayName: 'Root' });
    tokens.networkAdmin = await consoleToken(root);
    for (const actor of ['deleteModerator', 'channelModerator'] as const) {
      const role = t.uniqueId('role');
      await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: [HELD[actor]] });
      const userId = t.uniqueId(actor);
      await admin.createUser(userId, { username: userId, password, roles: [role] });
      tokens[actor] = await consoleToken(userId);
    }
    const member = t.uniqueId('member');
    await admin.createUser(member);
    tokens.member = (await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: member, expiresInMs: 3_600_000 })).token;
    tokens.bot = (await createBot(t, 'Matrix')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (method: string, url: string, actor: Actor) =>
    t.app.inject({ method: method as 'GET', url: url.replace(/:(\w+)/g, 'matrix-$1'), headers: { authorization: `Bearer ${tokens[actor]}` } });

  it('lists every admin route in the table, and nothing else', () => {
    const admin = t.routes.filter((route) => route.url.startsWith('/api/v2/') && route.method !== 'HEAD').map((route) => `${route.method} ${route.url}`);
    expect([...new Set(admin)].sort()).toEqual(Object.keys(ADMIN_ROUTES).sort());
  });

  it('answers every actor on every admin route as the table says', async () => {
    const wrong: string[] = [];
    for (const [route, needs] of Object.entries(ADMIN_ROUTES)) {
      const [method = '', url = ''] = route.split(' ');
      for (const actor of ACTORS) {
        const response = await call(method, url, actor);
        const code = (response.json() as { code?: number }).code ?? 0;
        const passed = response.statusCode < 500 && !REFUSALS.has(code);
        if (response.statusCode >= 500 || passed !== adminPasses(actor, needs)) wrong.push(`${route} as ${actor}: ${response.statusCode} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers every actor on every client, tray and bot route as its surface says', async () => {
    const routes = t.routes.filter(
      (route) =>
        !route.websocket && route.method !== 'HEAD' && SURFACES.some((s) => route.url.startsWith(s.prefix)) && !OWN_RULES.some((rule) => rule.test(route.url)),
    );
    expect(routes.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const route of routes) {
      const surface = SURFACES.find((s) => route.url.startsWith(s.prefix));
      if (surface === undefined) continue;
      for (const actor of ACTORS) {
        const response = await call(route.method, route.url, actor);
        const code = (response.json() as { code?: number }).code ?? 0;
        // Past the door, a route may still refuse by the actor's roles in a channel (400301): that is the
        // route's own rule about a channel that exists; the door is 401, 400300 or 400312.
        const passed = response.statusCode < 500 && response.statusCode !== 401 && code !== 400300 && code !== 400312;
        if (response.statusCode >= 500 || passed !== surface.passes.includes(actor))
          wrong.push(`${route.method} ${route.url} as ${actor}: ${response.statusCode} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
