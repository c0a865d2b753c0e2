import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { sessionCookieValue } from '../../helpers/credentials.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from '../console/console-signin.js';

interface Listed {
  sessions: Array<{ sessionId: string; userId: string; displayName: string; createdAt: string; lastSeenAt: string | null; expiresAt: string }>;
  paging: { next: string | null; prev: string | null };
}

describe.each(testDatabases)("every user's live sessions on %s", (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const list = async (query: string): Promise<Listed> => {
    const response = await admin.call('GET', `/api/v2/sessions${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Listed;
  };

  /** Whether the cookie still signs the browser in on the login page (the signed-in page). */
  const signedIn = async (cookie: string) => (await t.app.inject({ method: 'GET', url: '/login', headers: { cookie } })).body.includes('You are signed in');

  it('lists who is signed in, newest first, paged and by user, without cookies; a revoked session leaves the list', async () => {
    const s = signInClient(t);
    const ann = await s.createPerson({ displayName: 'Ann' });
    const ben = await s.createPerson({ displayName: 'Ben' });
    const annFirst = await s.login(ann.username, ann.password);
    await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 1000 });
    const benOnly = await s.login(ben.username, ben.password);
    await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 2000 });
    const annSecond = await s.login(ann.username, ann.password);

    const whole = await list('');
    expect(whole.sessions.map((session) => [session.userId, session.displayName])).toEqual([
      [ann.userId, 'Ann'],
      [ben.userId, 'Ben'],
      [ann.userId, 'Ann'],
    ]);
    expect(whole.paging).toEqual({ next: null, prev: null });
    const text = JSON.stringify(whole);
    for (const cookie of [annFirst, benOnly, annSecond]) expect(text).not.toContain(sessionCookieValue(cookie));

    // Two a page: the next page holds the oldest, and its prev leads back.
    const first = await list('?limit=2');
    expect(first.sessions.map((session) => session.sessionId)).toEqual(whole.sessions.slice(0, 2).map((session) => session.sessionId));
    const second = await list(`?pageToken=${encodeURIComponent(first.paging.next as string)}`);
    expect(second.sessions.map((session) => session.sessionId)).toEqual([whole.sessions[2]?.sessionId]);
    expect(second.paging.next).toBeNull();
    const back = await list(`?pageToken=${encodeURIComponent(second.paging.prev as string)}`);
    expect(back.sessions.map((session) => session.sessionId)).toEqual(first.sessions.map((session) => session.sessionId));

    // One user's, and a token of that list continues it only.
    const anns = await list(`?userId=${ann.userId}&limit=1`);
    expect(anns.sessions.map((session) => session.userId)).toEqual([ann.userId]);
    const annsNext = await list(`?pageToken=${encodeURIComponent(anns.paging.next as string)}`);
    expect(annsNext.sessions.map((session) => session.sessionId)).toEqual([whole.sessions[2]?.sessionId]);
    const mixed = await admin.call('GET', `/api/v2/sessions?userId=${ben.userId}&pageToken=${encodeURIComponent(anns.paging.next as string)}`);
    expect(mixed.statusCode).toBe(400);
    const altered = await admin.call('GET', `/api/v2/sessions?pageToken=${encodeURIComponent(`${anns.paging.next}x`)}`);
    expect(altered.statusCode).toBe(400);

    // Revoked through the user's route: the browser is signed out and the list no longer has it.
    const benSession = whole.sessions[1]?.sessionId as string;
    expect(await signedIn(benOnly)).toBe(true);
    expect((await admin.call('DELETE', `/api/v2/users/${ben.userId}/sessions/${benSession}`)).statusCode).toBe(200);
    expect(await signedIn(benOnly)).toBe(false);
    expect((await list('')).sessions.map((session) => session.sessionId)).not.toContain(benSession);
    expect(await signedIn(annFirst)).toBe(true);

    // Expired sessions are not live.
    await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 8 * 24 * 3600 * 1000 });
    expect((await list('')).sessions).toEqual([]);
  });

  it('is for network admins only', async () => {
    const password = 'sessions moderator 1';
    const role = t.uniqueId('all-users');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['EDIT_USER', 'BAN_USER'] });
    const moderatorId = t.uniqueId('mod');
    await admin.createUser(moderatorId, { username: moderatorId, password, roles: [role] });
    const signed = await signInWithPkce(t.app, { username: moderatorId, password, redirectUri: consoleRedirectUri(t.config.publicUrl) });
    const response = await t.app.inject({ method: 'GET', url: '/api/v2/sessions', headers: { authorization: `Bearer ${signed.accessToken}` } });
    expect([response.statusCode, response.json().code]).toEqual([403, 400301]);
  });
});
