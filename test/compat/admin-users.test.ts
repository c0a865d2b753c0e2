import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * The admin user routes answer what the original service's clients read (docs/compatibility.md; the
 * original's v2/user/response.yaml): clearing flags answers the user record (UserApiResponse), and the users
 * list names each user's id `publicId` too (AdminUser) and carries the roles its users hold
 * (UsersPaginationApiResponse), beside everything the contract's answer has (docs/contract.md, Records).
 */
describe.each(testDatabases)('admin user routes as the original answered them, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('DELETE /users/{userId}/flags answers the user record, flags cleared', async () => {
    const target = t.uniqueId('flagged');
    await admin.createUser(target, { displayName: 'Flag Target', metadata: { team: 'support' } });
    await t.storage.db.updateTable('users').set({ flag_count: 3 }).where('id', '=', target).execute();

    const response = await admin.call('DELETE', `/api/v2/users/${target}/flags`);
    expect(response.statusCode).toBe(200);
    const user = response.json();
    expect(user).toMatchObject({ userId: target, displayName: 'Flag Target', roles: [], metadata: { team: 'support' }, flagCount: 0, isGlobalBan: false });
    expect(user.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(user.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await admin.call('DELETE', '/api/v2/users/no-such-user/flags')).json()).toMatchObject({ code: 400400 });
  });

  it('GET /users gives each user publicId beside userId, and the roles the listed users hold', async () => {
    const prefix = t.uniqueId('listed');
    const moderator = `${prefix}-mod`;
    const reader = `${prefix}-reader`;
    const plain = `${prefix}-plain`;
    await admin.call('PUT', '/api/v2/roles', { publicIds: [`${prefix}-moderator`], permissions: ['DELETE_MESSAGE', 'BAN_USER'] });
    await admin.call('PUT', '/api/v2/roles', { publicIds: [`${prefix}-reader`, `${prefix}-unused`], permissions: [] });
    await admin.createUser(moderator, { roles: [`${prefix}-moderator`, `${prefix}-reader`] });
    await admin.createUser(reader, { roles: [`${prefix}-reader`, `${prefix}-never-created`] });
    await admin.createUser(plain);

    const response = await admin.call('GET', `/api/v2/users?search=${prefix}&limit=10`);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.users.map((entry: { info: { userId: string } }) => entry.info.userId)).toEqual([moderator, plain, reader]);
    for (const entry of body.users) expect(entry.info.publicId).toBe(entry.info.userId);
    expect(body.users[0].info).toMatchObject({ userId: moderator, publicId: moderator, roles: [`${prefix}-moderator`, `${prefix}-reader`], flagCount: 0 });
    expect(body.paging).toEqual({ next: null, prev: null });

    // Each role once, as a role record, in name order; a role nobody listed holds, or that does not exist, is not there.
    expect(body.roles).toEqual([
      { publicId: `${prefix}-moderator`, permissions: ['DELETE_MESSAGE', 'BAN_USER'], createdAt: expect.any(String), updatedAt: expect.any(String) },
      { publicId: `${prefix}-reader`, permissions: [], createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);

    const onlyPlain = (await admin.call('GET', `/api/v2/users?search=${plain}`)).json();
    expect(onlyPlain.roles).toEqual([]);
  });
});
