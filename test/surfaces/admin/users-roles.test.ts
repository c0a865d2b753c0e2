import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRolesService } from '../../../src/modules/roles/roles.service.js';
import { createUsersService } from '../../../src/modules/users/users.service.js';
import { createPageTokens } from '../../../src/shared/paging.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('users and roles admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a user, then changes only the fields given', async () => {
    const userId = t.uniqueId('hana');
    const created = await admin.call('PUT', '/api/v2/users', { userId, displayName: 'Hana', roles: ['mod'], metadata: { team: 'a' } });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ userId, displayName: 'Hana', roles: ['mod'], metadata: { team: 'a' }, flagCount: 0, isGlobalBan: false });
    const updated = await admin.form('PUT', '/api/v2/users', `userId=${userId}&metadata[team]=b`);
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ displayName: 'Hana', roles: ['mod'], metadata: { team: 'b' } });
    expect(Date.parse(updated.json().updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.json().createdAt));
  });

  it('never returns or stores a password in clear, and refuses a taken username', async () => {
    const userId = t.uniqueId('ivan');
    const password = 'correct horse battery staple';
    const response = await admin.call('PUT', '/api/v2/users', { userId, username: `${userId}-login`, password, email: 'ivan@example.com' });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(password);
    expect(response.json()).toMatchObject({ username: `${userId}-login`, email: 'ivan@example.com' });
    const row = await t.storage.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain(password);

    const other = await admin.call('PUT', '/api/v2/users', { userId: t.uniqueId('other'), username: `${userId}-login` });
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe(400315);
    const short = await admin.call('PUT', '/api/v2/users', { userId, password: 'short' });
    expect(short.statusCode).toBe(422);
  });

  it('creates a new user once when the same create arrives eight times at once; a taken username is still 409', async () => {
    const userId = t.uniqueId('racer');
    const answers = await Promise.all(Array.from({ length: 8 }, () => admin.call('PUT', '/api/v2/users', { userId, displayName: 'Racer' })));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(200));
    const rows = await t.storage.db.selectFrom('users').select('id').where('id', '=', userId).execute();
    expect(rows).toHaveLength(1);
    const name = t.uniqueId('handle');
    expect((await admin.call('PUT', '/api/v2/users', { userId: t.uniqueId('first'), username: name, password: 'correct horse battery' })).statusCode).toBe(200);
    const taken = await admin.call('PUT', '/api/v2/users', { userId: t.uniqueId('second'), username: name, password: 'correct horse battery' });
    expect({ status: taken.statusCode, code: taken.json().code }).toEqual({ status: 409, code: 400315 });
  });

  it('lists users with a case-insensitive prefix search, limit and page tokens', async () => {
    const prefix = t.uniqueId('Zed').toLowerCase();
    for (let i = 0; i < 12; i++) await admin.createUser(`${prefix}-${String(i).padStart(2, '0')}`, { displayName: `Zed ${i}` });
    await admin.createUser(t.uniqueId('literal'), { displayName: '100%_sure' });

    const first = await admin.call('GET', `/api/v2/users?search=${prefix.toUpperCase()}&limit=5`);
    expect(first.statusCode).toBe(200);
    const firstBody = first.json();
    expect(firstBody.users).toHaveLength(5);
    expect(firstBody.users[0].info.userId).toBe(`${prefix}-00`);
    expect(firstBody.paging.prev).toBeNull();

    const seen = firstBody.users.map((u: { info: { userId: string } }) => u.info.userId);
    let token = firstBody.paging.next;
    while (token) {
      const page = (await admin.call('GET', `/api/v2/users?search=${prefix}&limit=5&pageToken=${encodeURIComponent(token)}`)).json();
      seen.push(...page.users.map((u: { info: { userId: string } }) => u.info.userId));
      token = page.paging.next;
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);

    const defaultLimit = await admin.call('GET', `/api/v2/users?search=${prefix}`);
    expect(defaultLimit.json().users).toHaveLength(10);

    // % and _ are literal characters in a search, not wildcards.
    const literal = await admin.call('GET', '/api/v2/users?search=100%25_');
    expect(literal.json().users.map((u: { info: { displayName: string } }) => u.info.displayName)).toEqual(['100%_sure']);
    const wildcard = await admin.call('GET', '/api/v2/users?search=1_0');
    expect(wildcard.json().users).toEqual([]);

    // Case-insensitive beyond ASCII, on SQLite as on PostgreSQL.
    const accented = t.uniqueId('accented');
    await admin.createUser(accented, { displayName: 'Ωmega Élodie' });
    for (const search of ['Ωmega É', 'ωMEGA é', 'ΩMEGA ÉLO']) {
      const found = (await admin.call('GET', `/api/v2/users?search=${encodeURIComponent(search)}`)).json();
      expect({ search, ids: found.users.map((u: { info: { userId: string } }) => u.info.userId) }).toEqual({ search, ids: [accented] });
    }

    expect((await admin.call('GET', '/api/v2/users?limit=0')).statusCode).toBe(422);
    expect((await admin.call('GET', '/api/v2/users?limit=101')).statusCode).toBe(422);
    expect((await admin.call('GET', '/api/v2/users?filter=muted')).statusCode).toBe(400);
    expect((await admin.call('GET', '/api/v2/users?pageToken=garbage')).json()).toMatchObject({ code: 400000, message: 'Query token is invalid.' });
  });

  it('lists flagged users and clears their flags', async () => {
    const target = t.uniqueId('flagged');
    await admin.createUser(target);
    const users = createUsersService({
      db: t.storage.db,
      clock: t.clock,
      pageTokens: createPageTokens('test'),
      notices: { publish() {}, on() {} },
      roles: createRolesService({ db: t.storage.db, clock: t.clock }),
    });
    expect(await users.flag('flagger-1', target)).toBe(true);
    expect(await users.flag('flagger-1', target)).toBe(false);
    expect(await users.flag('flagger-2', target)).toBe(true);

    const flagged = (await admin.call('GET', '/api/v2/users?filter=flagged&limit=100')).json();
    const entry = flagged.users.find((u: { info: { userId: string } }) => u.info.userId === target);
    expect(entry.info.flagCount).toBe(2);
    expect(flagged.users.every((u: { info: { flagCount: number } }) => u.info.flagCount > 0)).toBe(true);

    const clear = await admin.call('DELETE', `/api/v2/users/${target}/flags`);
    expect(clear.statusCode).toBe(200);
    const after = (await admin.call('GET', '/api/v2/users?filter=flagged&limit=100')).json();
    expect(after.users.find((u: { info: { userId: string } }) => u.info.userId === target)).toBeUndefined();
    expect(await users.flag('flagger-1', target)).toBe(true);

    expect((await admin.call('DELETE', '/api/v2/users/no-such-user/flags')).statusCode).toBe(404);
  });

  it('bans and unbans a user globally; a second unban is 409 / 400316', async () => {
    const userId = t.uniqueId('jo');
    await admin.createUser(userId);
    const ban = await admin.form('POST', '/api/v2/users/ban', `userId=${userId}`);
    expect(ban.statusCode).toBe(200);
    expect(ban.json()).toEqual({ status: 'success' });
    const listed = (await admin.call('GET', `/api/v2/users?search=${userId}`)).json();
    expect(listed.users[0].info.isGlobalBan).toBe(true);
    expect((await admin.call('POST', '/api/v2/users/unban', { userId })).statusCode).toBe(200);
    const again = await admin.call('POST', '/api/v2/users/unban', { userId });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe(400316);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: 'nobody-at-all' })).statusCode).toBe(404);
    expect((await admin.call('POST', '/api/v2/users/ban', {})).statusCode).toBe(422);
  });

  it('creates roles from the permission catalogue and refuses unknown permissions', async () => {
    const role = t.uniqueId('moderator');
    const put = await admin.form('PUT', '/api/v2/roles', `publicIds=${role}&permissions=DELETE_MESSAGE&permissions=BAN_USER_FROM_CHANNEL`);
    expect(put.statusCode).toBe(200);
    expect(put.json().data.roles[0]).toMatchObject({ publicId: role, permissions: ['DELETE_MESSAGE', 'BAN_USER_FROM_CHANNEL'] });

    const replaced = await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['MUTE_CHANNEL'] });
    expect(replaced.json().data.roles[0].permissions).toEqual(['MUTE_CHANNEL']);
    expect(replaced.json().data.roles[0].createdAt).toBe(put.json().data.roles[0].createdAt);

    const unknown = await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['MUTE_CHANNEL', 'RULE_THE_WORLD'] });
    expect(unknown.statusCode).toBe(422);
    expect(JSON.stringify(unknown.json().data.detail)).toContain('RULE_THE_WORLD');

    const list = await admin.call('GET', `/api/v2/roles?filter=${role}`);
    expect(list.json()).toMatchObject({ status: 'success', data: { roles: [{ publicId: role, permissions: ['MUTE_CHANNEL'] }] } });
    expect(list.json().data.permissions).toContain('DELETE_MESSAGE');
    const all = await admin.call('GET', '/api/v2/roles');
    expect(all.json().data.roles.length).toBeGreaterThanOrEqual(1);
    expect((await admin.call('PUT', '/api/v2/roles', { permissions: [] })).statusCode).toBe(422);
  });
});
