import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createAuditService } from '../../../src/modules/audit/audit.service.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { createPageTokens } from '../../../src/shared/paging.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Entry {
  id: string;
  at: string;
  actor: { type: string; name: string; userId: string | null };
  operation: string;
  method: string;
  route: string;
  targets: Array<{ field: string; id: string }>;
  status: number;
  success: boolean;
  errorCode: number | null;
  requestId: string | null;
}
interface AuditPage {
  entries: Entry[];
  paging: { next: string | null; prev: string | null };
}

const DAY = 86_400_000;

describe.each(testDatabases)('the audit trail of administrative actions, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function audit(query: string): Promise<AuditPage> {
    const response = await admin.call('GET', `/api/v2/audit?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as AuditPage;
  }

  /** A user with an access token minted through the admin API, and a caller of the client API as them. */
  async function user(prefix: string, roles: string[] = []) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { roles });
    const minted = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 36_000 });
    const token = (minted.json() as { accessToken: string }).accessToken;
    const as = (method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, token, as };
  }

  it("records an admin token's action: actor, operation, target ids, outcome and request id", async () => {
    const bob = t.uniqueId('bob');
    await admin.createUser(bob);
    const channelId = t.uniqueId('general');
    await admin.createChannel(channelId, { userIds: [bob] });
    const ban = await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [bob] }, { 'x-request-id': 'audit-ban-1' });
    expect(ban.statusCode).toBe(200);

    const { entries } = await audit(`target=${channelId}`);
    expect(entries.map((entry) => entry.operation)).toEqual(['channel.banUsers', 'channel.create']);
    expect(entries[0]).toMatchObject({
      actor: { type: 'admin', name: 'PARLEY_ADMIN_TOKEN', userId: 'admin-env' },
      operation: 'channel.banUsers',
      method: 'POST',
      route: '/api/v2/channel/:channelId/users/ban',
      targets: [
        { field: 'channelId', id: channelId },
        { field: 'userIds', id: bob },
      ],
      status: 200,
      success: true,
      errorCode: null,
      requestId: 'audit-ban-1',
    });
    expect(Math.abs(Date.parse(entries[0]?.at ?? '') - t.clock.now())).toBeLessThan(60_000);
    // The ban names bob too, so his id finds it, with his creation.
    expect((await audit(`target=${bob}`)).entries.map((entry) => entry.operation)).toEqual(['channel.banUsers', 'channel.create', 'user.upsert']);
  });

  it("names an admin token by its own name, and a failed action carries the answer's error code", async () => {
    const name = t.uniqueId('ops-script');
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).createAdminToken(name);
    const missing = t.uniqueId('nowhere');
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    expect((await as('POST', `/api/v2/channel/${missing}/close`)).statusCode).toBe(404);
    expect((await as('PUT', `/api/v2/channel/${missing}/mute`, { mutePeriod: 'soon' })).statusCode).toBe(422);

    const { entries } = await audit(`target=${missing}`);
    expect(entries.map((entry) => [entry.operation, entry.actor.name, entry.actor.userId, entry.status, entry.success, entry.errorCode])).toEqual([
      ['channel.mute', name, `admin-${name}`, 422, false, 500000],
      ['channel.close', name, `admin-${name}`, 404, false, 400400],
    ]);
    expect((await audit(`actor=${name}`)).entries).toHaveLength(2);
  });

  it("records a moderator's actions on the client API, refused ones with their code, and nothing else users do", async () => {
    const role = t.uniqueId('moderator');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['BAN_USER_FROM_CHANNEL', 'CLOSE_CHANNEL'] });
    const mod = await user('mod', [role]);
    const plain = await user('plain');
    const carol = t.uniqueId('carol');
    await admin.createUser(carol);
    const channelId = t.uniqueId('modroom');
    await admin.createChannel(channelId, { userIds: [mod.userId, plain.userId, carol] });

    expect((await plain.as('POST', `/client/v1/channels/${channelId}/close`)).statusCode).toBe(403);
    expect((await mod.as('POST', `/client/v1/channels/${channelId}/users/ban`, { userIds: [carol] })).statusCode).toBe(200);
    expect((await plain.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'hello' } })).statusCode).toBe(200);
    expect((await plain.as('POST', `/client/v1/users/${carol}/flag`)).statusCode).toBe(200);
    expect((await plain.as('POST', `/client/v1/channels/${channelId}/read`, { segment: 1 })).statusCode).toBe(200);

    const { entries } = await audit(`target=${channelId}`);
    expect(entries.map((entry) => [entry.actor.type, entry.actor.name, entry.operation, entry.route, entry.status, entry.errorCode])).toEqual([
      ['user', mod.userId, 'channel.banUsers', '/client/v1/channels/:channelId/users/ban', 200, null],
      ['user', plain.userId, 'channel.close', '/client/v1/channels/:channelId/close', 403, 400301],
      ['admin', 'PARLEY_ADMIN_TOKEN', 'channel.create', '/api/v2/channel', 200, null],
    ]);
    expect(entries[0]?.targets).toEqual([
      { field: 'channelId', id: channelId },
      { field: 'userIds', id: carol },
    ]);
    expect(entries[0]?.actor.userId).toBe(mod.userId);
    // The flag and the read marker are users' own business, not moderation.
    expect((await audit(`actor=${plain.userId}`)).entries.map((entry) => entry.operation)).toEqual(['channel.close']);
  });

  it('records neither reads, nor the admin POSTs that only query, nor requests without a valid token', async () => {
    const channelId = t.uniqueId('quiet');
    await admin.createChannel(channelId);
    await admin.call('POST', '/api/v2/channels', { filter: 'member' });
    await admin.call('POST', '/api/v2/messages', { channelId });
    await admin.call('GET', `/api/v2/users?search=${channelId}`);
    const forged = await t.app.inject({ method: 'POST', url: `/api/v2/channel/${channelId}/close`, headers: { authorization: 'Bearer not-a-token' } });
    expect(forged.statusCode).toBe(401);
    const { entries } = await audit(`target=${channelId}`);
    expect(entries.map((entry) => entry.operation)).toEqual(['channel.create']);
    expect(
      (await audit('limit=100')).entries.some(
        (entry) => ['/api/v2/channels', '/api/v2/messages', '/api/v2/users'].includes(entry.route) && entry.method !== 'PUT',
      ),
    ).toBe(false);
  });

  it('keeps no password, token, message text, rule word or client secret in any audit row', async () => {
    const password = 'Sup3r-secret-passphrase-4411';
    const text = 'the confidential launch date is 2031-04-01';
    const word = 'forbiddenword9931';
    const userId = t.uniqueId('secretive');
    expect((await admin.call('PUT', '/api/v2/users', { userId, username: t.uniqueId('login'), password })).statusCode).toBe(200);
    const minted = (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 600 })).json() as { accessToken: string };
    const channelId = t.uniqueId('secrets');
    await admin.createChannel(channelId, { userIds: [userId] });
    expect((await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } })).statusCode).toBe(200);
    expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [word] })).statusCode).toBe(200);
    const client = (await admin.call('POST', '/api/v2/oauth/clients', { name: 'Audit app', redirectUris: ['https://audit.example/cb'] })).json() as {
      clientId: string;
      clientSecret: string;
    };
    // A refused request too: its body is hostile and never validated (a list where one id goes is not read).
    expect((await admin.call('PUT', '/api/v2/users', { userId: [password], password: { text } })).statusCode).toBe(422);

    await audit('limit=1');
    const rows = JSON.stringify([
      await t.storage.db.selectFrom('audit_log').selectAll().execute(),
      await t.storage.db.selectFrom('audit_targets').selectAll().execute(),
    ]);
    expect(rows).toContain(userId);
    expect(rows).toContain('oauthClient.create');
    for (const secret of [password, text, word, minted.accessToken, t.adminToken, client.clientSecret]) expect(rows).not.toContain(secret);
  });

  it('filters by operation and time, and pages newest first with keyset tokens', async () => {
    const channelId = t.uniqueId('paged');
    await admin.createChannel(channelId);
    const start = t.clock.now();
    try {
      for (let i = 1; i <= 7; i += 1) {
        t.clock.setOffset(i * DAY);
        expect((await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: i * 1000 })).statusCode).toBe(200);
      }
    } finally {
      t.clock.setOffset(0);
    }
    const all = (await audit(`target=${channelId}&limit=100`)).entries;
    expect(all.map((entry) => entry.operation)).toEqual([...Array(7).fill('channel.mute'), 'channel.create']);
    const times = all.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const seen: string[] = [];
    let page = await audit(`target=${channelId}&limit=3`);
    const pages = [page];
    seen.push(...page.entries.map((entry) => entry.id));
    while (page.paging.next) {
      // The token alone continues its query, filters and page size included.
      page = await audit(`pageToken=${page.paging.next}`);
      pages.push(page);
      seen.push(...page.entries.map((entry) => entry.id));
    }
    expect(pages.map((item) => item.entries.length)).toEqual([3, 3, 2]);
    expect(seen).toEqual(all.map((entry) => entry.id));
    const back = await audit(`pageToken=${pages[2]?.paging.prev}`);
    expect(back.entries.map((entry) => entry.id)).toEqual(pages[1]?.entries.map((entry) => entry.id));
    expect((await admin.call('GET', `/api/v2/audit?operation=channel.close&pageToken=${pages[0]?.paging.next}`)).json()).toMatchObject({ code: 400000 });

    const from = new Date(start + 3 * DAY - 60_000).toISOString();
    const to = new Date(start + 5 * DAY - 60_000).toISOString();
    const windowed = await audit(`target=${channelId}&operation=channel.mute&from=${from}&to=${to}`);
    expect(windowed.entries.map((entry) => Date.parse(entry.at) - start).map((ms) => Math.round(ms / DAY))).toEqual([4, 3]);
    expect((await audit(`target=${channelId}&operation=channel.create`)).entries).toHaveLength(1);
  });

  it('refuses malformed filters with a 4xx in the envelope', async () => {
    for (const query of ['from=yesterday', 'limit=0', 'limit=101', 'to=2025-02-30T25:00:00Z', 'pageToken=abc.def', `target=${'x'.repeat(51)}`]) {
      const response = await admin.call('GET', `/api/v2/audit?${query}`);
      expect([400, 422], `${query}: ${response.body}`).toContain(response.statusCode);
      expect(response.json()).toMatchObject({ status: 'error' });
    }
    const userToken = (await user('nosy')).token;
    const refused = await t.app.inject({ method: 'GET', url: '/api/v2/audit', headers: { authorization: `Bearer ${userToken}` } });
    expect(refused.statusCode).toBe(403);
  });

  it('records actions of the parley command under the actor cli', async () => {
    const service = standaloneService(t);
    const name = t.uniqueId('deploy-bot');
    await service.recordCliAction('admin-token create', 'adminToken.create', [{ field: 'name', id: name }]);
    const { entries } = await audit(`target=${name}`);
    expect(entries).toEqual([
      expect.objectContaining({
        actor: { type: 'cli', name: 'cli', userId: null },
        operation: 'adminToken.create',
        method: 'CLI',
        route: 'admin-token create',
      }),
    ]);
  });

  it('prunes entries older than the retention period in batches, one instance per period', async () => {
    const channelId = t.uniqueId('old');
    await admin.createChannel(channelId);
    const service = standaloneService(t);
    // Older entries than one batch of the prune holds.
    for (let i = 0; i < 1200; i += 1) {
      service.record({
        at: t.clock.now() - 10_000,
        actor: { type: 'cli' },
        operation: 'bulk.old',
        method: 'CLI',
        route: 'seed',
        targets: [{ field: 'channelId', id: channelId }],
        status: 200,
        errorCode: null,
        requestId: null,
      });
    }
    await service.flush();
    try {
      t.clock.setOffset(t.config.auditRetentionMs + DAY);
      await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 1000 });
      expect((await audit(`target=${channelId}&limit=100`)).paging.next).not.toBeNull();
      expect(await service.pruneExpired()).toBeGreaterThanOrEqual(1201);
      expect((await audit(`target=${channelId}`)).entries.map((entry) => entry.operation)).toEqual(['channel.mute']);
      const count = await t.storage.db
        .selectFrom('audit_targets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('target_id', '=', channelId)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
    } finally {
      t.clock.setOffset(0);
    }
    // Two instances look at once: one of them runs this period's prune (the app's own check may have run: due again).
    await t.storage.db.updateTable('settings').set({ value: '0' }).where('key', '=', 'audit_pruned_at').execute();
    const runs = await Promise.all([standaloneService(t).pruneIfDue(), standaloneService(t).pruneIfDue()]);
    expect(runs.filter((run) => run !== null)).toHaveLength(1);
    expect(await standaloneService(t).pruneIfDue()).toBeNull();
  });
});

/** The audit service as another instance on the same database builds it (the prune job, the CLI). */
function standaloneService(t: TestApp) {
  return createAuditService({
    db: t.storage.db,
    dialect: t.storage.dialect,
    clock: t.clock,
    pageTokens: createPageTokens('audit-test'),
    retentionMs: t.config.auditRetentionMs,
    adminTokenNames: async () => [],
    onLost: (error) => {
      throw error;
    },
    onBackgroundError: (error) => {
      throw error;
    },
  });
}

describe.each(testDatabases)('audit writes that fail, on %s', (database) => {
  it('neither fail nor slow the request, and the log keeps the entry', async () => {
    const lines: string[] = [];
    const t = await startTestApp(database, { LOG_LEVEL: 'error' }, { logStream: { write: (line) => void lines.push(line) } });
    try {
      await t.storage.db.schema.dropTable('audit_targets').execute();
      const channelId = t.uniqueId('unrecorded');
      const response = await adminClient(t).call('POST', '/api/v2/channel', { channelId, type: 'standard' });
      expect(response.statusCode).toBe(200);
      for (let i = 0; i < 100 && !lines.some((line) => line.includes('audit entries were not written')); i += 1) await new Promise((r) => setTimeout(r, 20));
      const logged = lines.find((line) => line.includes('audit entries were not written'));
      expect(logged).toBeDefined();
      expect(JSON.parse(logged ?? '{}').auditEntries).toEqual([
        expect.objectContaining({ operation: 'channel.create', status: 200, targets: [{ field: 'channelId', id: channelId }] }),
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('PARLEY_AUDIT_RETENTION_DAYS', () => {
  it('defaults to 365 days and takes whole days from 1 to 36500', () => {
    expect(loadConfig({}).auditRetentionMs).toBe(365 * DAY);
    expect(loadConfig({ PARLEY_AUDIT_RETENTION_DAYS: '30' }).auditRetentionMs).toBe(30 * DAY);
    for (const raw of ['0', '1.5', 'forever', '36501']) expect(() => loadConfig({ PARLEY_AUDIT_RETENTION_DAYS: raw })).toThrow(ConfigError);
  });
});
