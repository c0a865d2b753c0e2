import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { runCli } from '../../src/cli/main.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: null, trayEnabled: false, testClock: false });
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
    expect(config.oidcIssuer).toBe(config.publicUrl);
    expect(config.uploadLimitBytes).toBe(25 * 1024 * 1024);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres:/],
    [{ PUBLIC_URL: 'not a url' }, /PUBLIC_URL must be a URL/],
    [{ PARLEY_TRAY_ENABLED: 'yes' }, /PARLEY_TRAY_ENABLED must be 1, true, 0 or false/],
    [{ PARLEY_ADMIN_TOKEN: 'short' }, /at least 32 characters/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
  ])('refuses %o with a message that says what to fix', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the tray switch as docs/contract.md, Easy to get wrong, says', () => {
    expect(loadConfig({ PARLEY_TRAY_ENABLED: '1' }).trayEnabled).toBe(true);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: 'true' }).trayEnabled).toBe(true);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: '0' }).trayEnabled).toBe(false);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: 'false' }).trayEnabled).toBe(false);
  });
});

describe.each(testDatabases)('foundation on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers health and readiness without a token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });

  it('refuses a missing or unknown admin token with 401 / 400100 in the envelope', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/api/v2/channels' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ status: 'error', code: 400100, message: 'Missing bearer token.', data: { detail: [], fields: [] } });
    const garbage = await t.app.inject({ method: 'POST', url: '/api/v2/channels', headers: { authorization: 'Bearer not-a-real-token' } });
    expect(garbage.statusCode).toBe(401);
    expect(garbage.json().code).toBe(400100);
    const basic = await t.app.inject({ method: 'POST', url: '/api/v2/channels', headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    expect(basic.statusCode).toBe(401);
  });

  it('refuses user and bot tokens on the admin API with 403 / 400300', async () => {
    const userId = t.uniqueId('tokenuser');
    await admin.createUser(userId);
    const { createTokensService } = await import('../../src/modules/tokens/tokens.service.js');
    const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
    for (const kind of ['user', 'bot'] as const) {
      const issued = await tokens.issue({ kind, userId, expiresInMs: 60_000 });
      const response = await t.app.inject({ method: 'GET', url: '/api/v2/roles', headers: { authorization: `Bearer ${issued.token}` } });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe(400300);
    }
    const expired = await tokens.issue({ kind: 'user', userId, expiresInMs: 1 });
    t.clock.setOffset(10);
    const late = await t.app.inject({ method: 'GET', url: '/api/v2/roles', headers: { authorization: `Bearer ${expired.token}` } });
    t.clock.setOffset(0);
    expect(late.statusCode).toBe(401);
  });

  it('stores admin tokens hashed; created tokens work until revoked', async () => {
    const { createTokensService } = await import('../../src/modules/tokens/tokens.service.js');
    const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
    const name = t.uniqueId('ops');
    const issued = await tokens.createAdminToken(name);
    expect(issued.token.length).toBeGreaterThanOrEqual(43);
    const rows = await t.storage.db.selectFrom('tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(issued.token);
    expect(JSON.stringify(rows)).not.toContain(t.adminToken);

    const use = () => t.app.inject({ method: 'GET', url: '/api/v2/roles', headers: { authorization: `Bearer ${issued.token}` } });
    expect((await use()).statusCode).toBe(200);
    await expect(tokens.createAdminToken(name)).rejects.toThrow(/already exists/);
    expect(await tokens.revokeAdminToken(name)).toBe(1);
    expect((await use()).statusCode).toBe(401);
  });

  it('answers unknown routes with 404 / 400400 in the envelope, never HTML', async () => {
    for (const url of ['/api/v2/nothing-here', '/nothing', '/bot/v1/unknown']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 'error', code: 400400 });
    }
  });

  it('answers a body over the limit with 413 / 500000', async () => {
    const response = await admin.call('POST', '/api/v2/channel', { channelId: 'big', type: 'standard', metadata: { blob: 'x'.repeat(2 * 1024 * 1024) } });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ status: 'error', code: 500000 });
  });

  it('refuses metadata over 100 KB with 422', async () => {
    const response = await admin.call('POST', '/api/v2/channel', {
      channelId: t.uniqueId('meta'),
      type: 'standard',
      metadata: { blob: 'x'.repeat(101 * 1024) },
    });
    expect(response.statusCode).toBe(422);
  });

  it('never answers 500 to malformed input', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"channelId": "x", "type": "standard", "metadata": {"__proto__": {"polluted": true}}}'],
      ['application/json', '[]'],
      ['application/json', '{"channelId": "ok-1", "type": "standard", "tags": [1, {"a": 2}]}'],
      ['application/json', 'null'],
      ['application/json', '"just a string"'],
      ['application/json', '{"channelId": {"$gt": ""}, "type": "standard"}'],
      ['application/x-www-form-urlencoded', 'channelId[a][b][c][d][e][f][g]=1&type=standard'],
      ['application/x-www-form-urlencoded', '%%%%'],
      ['application/x-www-form-urlencoded', `userIds[999999999]=a&channelId=x&type=standard`],
      ['application/x-www-form-urlencoded', '__proto__[admin]=1&channelId=x&type=standard'],
      ['multipart/form-data; boundary=x', '--x\r\nbroken'],
    ];
    for (const [type, payload] of bodies) {
      const response = await admin.call('POST', '/api/v2/channel', payload, { 'content-type': type });
      // Some of these are valid once the hostile parts are dropped; none may crash or pollute.
      expect(response.statusCode, `${type} ${payload}`).toBeLessThan(500);
      if (response.statusCode >= 400) expect(response.json().status).toBe('error');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses an empty JSON body where a body is expected, and ignores one where the route takes none', async () => {
    const empty = await admin.call('POST', '/api/v2/channel', '', { 'content-type': 'application/json' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ status: 'error', code: 400000 });
    const channelId = t.uniqueId('empty-body');
    await admin.createChannel(channelId);
    // Closing takes no body: a client library that labels every request application/json still closes it.
    const close = await admin.call('POST', `/api/v2/channel/${channelId}/close`, '', { 'content-type': 'application/json' });
    expect(close.statusCode, close.body).toBe(200);
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/close`, '', { 'content-type': 'application/json' })).json()).toMatchObject({
      status: 'error',
    });
  });

  it('echoes a request id', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('has no test-clock route unless PARLEY_TEST_CLOCK is set', async () => {
    const response = await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 1000 });
    expect(response.statusCode).toBe(404);
  });

  it('publishes an OpenAPI 3.1 document of the routes and a browsable reference', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/v2/channels', '/api/v2/channel/{channelId}/users', '/api/v2/users', '/api/v2/roles']),
    );
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('the parley command', () => {
  it('creates, lists and revokes admin tokens, and never lists a token itself', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
    const previous = process.env.DATA_DIR;
    process.env.DATA_DIR = dataDir;
    try {
      const lines: string[] = [];
      const print = (line: string) => lines.push(line);
      expect(await runCli(['migrate'], print)).toBe(0);
      expect(lines.pop()).toMatch(/applied: 0001_foundation/);
      expect(await runCli(['admin-token', 'create', '--name', 'ops'], print)).toBe(0);
      const token = lines.pop() as string;
      expect(token).toMatch(/^[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
      expect(await runCli(['admin-token', 'list'], print)).toBe(0);
      const listed = lines.pop() as string;
      expect(listed).toContain('ops');
      expect(listed).toContain('active');
      expect(listed).not.toContain(token);
      expect(await runCli(['admin-token', 'revoke', 'ops'], print)).toBe(0);
      expect(await runCli(['admin-token', 'revoke', 'ops'], print)).toBe(1);
      expect(await runCli(['admin-token', 'create'], print)).toBe(2);
    } finally {
      if (previous === undefined) delete process.env.DATA_DIR;
      else process.env.DATA_DIR = previous;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
