import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** The admin routes the console's Rules, Channels, Roles and Apps screens call, with answers held to their schemas. */
describe.each(testDatabases)('admin console routes on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /rules/test', () => {
    let channelId: string;
    beforeAll(async () => {
      channelId = t.uniqueId('ruled');
      await admin.createChannel(channelId);
    });
    afterEach(async () => {
      for (const kind of ['blacklist', 'whitelist'] as const) {
        const ruleIds = (await admin.call('GET', `/api/v2/${kind}/records`)).json().data.results.map((rule: { ruleId: string }) => rule.ruleId);
        if (ruleIds.length > 0) expect((await admin.call('DELETE', `/api/v2/${kind}/records`, { ruleIds })).statusCode).toBe(200);
      }
    });

    const addRules = async (kind: 'blacklist' | 'whitelist', regexs: string[], extra: Record<string, unknown> = {}) => {
      const response = await admin.call('POST', `/api/v2/${kind}/records`, { regexs, ...extra });
      expect(response.statusCode).toBe(200);
      return response.json().data.results as Array<{ ruleId: string; regex: string }>;
    };
    const testText = async (text: string) => {
      const response = await admin.call('POST', '/api/v2/rules/test', { text });
      expect(response.statusCode).toBe(200);
      return response.json() as { allowed: boolean; matched: Array<{ ruleId: string | null; list: string; word: string }> };
    };
    const send = (text: string) => admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });

    it('lists every blacklisted word, with folding and word boundaries, and every link off the whitelist', async () => {
      const [leak, spoil] = await addRules('blacklist', ['leak', 'spoil']);
      const [cat] = await addRules('blacklist', ['cat'], { isMatchExactWord: true });
      await addRules('whitelist', ['docs.example.com']);

      const answer = await testText('The ＬＥＡＫ and a SPOILER, see https://docs.example.com/a and http://elsewhere.example/x; concatenate');
      expect(answer).toEqual({
        allowed: false,
        matched: [
          { ruleId: leak?.ruleId, list: 'blacklist', word: 'leak' },
          { ruleId: spoil?.ruleId, list: 'blacklist', word: 'spoil' },
          { ruleId: null, list: 'whitelist', word: 'http://elsewhere.example/x' },
        ],
      });
      // "concatenate" holds "cat" but not as a word; "the cat" does.
      expect((await testText('the cat sat')).matched).toEqual([{ ruleId: cat?.ruleId, list: 'blacklist', word: 'cat' }]);
      expect(await testText('a plain text about https://docs.example.com/guide')).toEqual({ allowed: true, matched: [] });
    });

    it('agrees with a send, and stores nothing', async () => {
      await addRules('blacklist', ['forbidden']);
      await addRules('whitelist', ['example.org']);
      const messagesBefore = await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute();
      for (const text of ['a Forbidden thing', 'see https://example.org/x', 'see https://example.net/x', 'fine words']) {
        const { allowed } = await testText(text);
        const sent = await send(text);
        expect({ text, accepted: sent.statusCode === 200 }).toEqual({ text, accepted: allowed });
      }
      const messagesAfter = await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute();
      // Only the two sends that were accepted added messages; the tests added none.
      expect(messagesAfter.length - messagesBefore.length).toBe(2);
    });

    it('leaves disabled rules out and refuses a text that is not a string', async () => {
      const [rule] = await addRules('blacklist', ['quiet']);
      expect((await testText('quiet please')).allowed).toBe(false);
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${rule?.ruleId}`, { isEnabled: false })).statusCode).toBe(200);
      expect(await testText('quiet please')).toEqual({ allowed: true, matched: [] });
      const bad = await admin.call('POST', '/api/v2/rules/test', { text: { nested: true } });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().status).toBe('error');
    });
  });

  describe('GET /channel/:channelId and /channel/:channelId/users', () => {
    it('answers one channel as the channel list does, and 404 for an unknown one', async () => {
      const channelId = t.uniqueId('one');
      const created = await admin.createChannel(channelId, { displayName: 'One', tags: ['team'] });
      const listed = (await admin.call('POST', '/api/v2/channels', { tags: ['team'], options: { limit: 100 } }))
        .json()
        .results.find((row: { channel: { channelId: string } }) => row.channel.channelId === channelId);
      const response = await admin.call('GET', `/api/v2/channel/${channelId}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(listed);
      expect(response.json().channel.displayName).toBe(created.channel.displayName);
      const missing = await admin.call('GET', `/api/v2/channel/${t.uniqueId('nowhere')}`);
      expect({ status: missing.statusCode, code: missing.json().code }).toEqual({ status: 404, code: 400400 });
    });

    it('pages through members and banned users by user id, with their mute state and accounts', async () => {
      const channelId = t.uniqueId('crowd');
      const userIds = ['a', 'b', 'c', 'd', 'e'].map((name) => `${t.uniqueId('m')}-${name}`);
      for (const userId of userIds) await admin.createUser(userId, { displayName: `User ${userId}` });
      await admin.createChannel(channelId, { userIds });
      const [, muted, banned] = userIds as [string, string, string];
      expect((await admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { userIds: [muted], mutePeriod: 600_000 })).statusCode).toBe(200);
      expect((await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [banned] })).statusCode).toBe(200);

      type Row = { channelUser: { userId: string; isMuted: boolean; isBanned: boolean }; user: { displayName: string } | null };
      const seen: Row[] = [];
      let pageToken: string | null = null;
      let pages = 0;
      do {
        const query: string = pageToken === null ? 'limit=2' : `pageToken=${encodeURIComponent(pageToken)}`;
        const response = await admin.call('GET', `/api/v2/channel/${channelId}/users?${query}`);
        expect(response.statusCode).toBe(200);
        const body = response.json() as { results: Row[]; paging: { next: string | null; prev: string | null } };
        expect(body.results.length).toBeLessThanOrEqual(2);
        seen.push(...body.results);
        pageToken = body.paging.next;
        pages += 1;
      } while (pageToken !== null && pages < 10);
      // The admin who created the channel is a member too.
      const ids = seen.map((row) => row.channelUser.userId);
      expect(ids).toEqual([...ids].sort());
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(userIds));
      expect(ids).toHaveLength(userIds.length + 1);
      const byId = new Map(seen.map((row) => [row.channelUser.userId, row]));
      expect(byId.get(muted)?.channelUser).toMatchObject({ isMuted: true, isBanned: false });
      expect(byId.get(banned)?.channelUser).toMatchObject({ isBanned: true });
      expect(byId.get(userIds[0] as string)?.user?.displayName).toBe(`User ${userIds[0]}`);
    });

    it("refuses another channel's page token, an altered one, and an unknown channel", async () => {
      const first = t.uniqueId('first');
      const second = t.uniqueId('second');
      const members = [t.uniqueId('p'), t.uniqueId('q')];
      for (const userId of members) await admin.createUser(userId);
      await admin.createChannel(first, { userIds: members });
      await admin.createChannel(second, { userIds: members });
      const next = (await admin.call('GET', `/api/v2/channel/${first}/users?limit=1`)).json().paging.next as string;
      expect(next).toEqual(expect.any(String));
      expect((await admin.call('GET', `/api/v2/channel/${second}/users?pageToken=${encodeURIComponent(next)}`)).statusCode).toBe(400);
      expect((await admin.call('GET', `/api/v2/channel/${first}/users?pageToken=${encodeURIComponent(`${next}x`)}`)).statusCode).toBe(400);
      expect((await admin.call('GET', `/api/v2/channel/${first}/users?limit=0`)).statusCode).toBe(422);
      expect((await admin.call('GET', `/api/v2/channel/${t.uniqueId('none')}/users`)).statusCode).toBe(404);
    });
  });

  describe('DELETE /roles/:publicId', () => {
    it('deletes a role nobody holds', async () => {
      const role = t.uniqueId('editor');
      expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['EDIT_CHANNEL'] })).statusCode).toBe(200);
      const deleted = await admin.call('DELETE', `/api/v2/roles/${role}`);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ status: 'success' });
      expect((await admin.call('GET', `/api/v2/roles?filter=${role}`)).json().data.roles).toEqual([]);
      const again = await admin.call('DELETE', `/api/v2/roles/${role}`);
      expect({ status: again.statusCode, code: again.json().code }).toEqual({ status: 404, code: 400400 });
    });

    it('refuses with 409 while a user or a channel member holds the role, naming them', async () => {
      const role = t.uniqueId('mod');
      const similar = `${role}x`;
      expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['DELETE_MESSAGE'] })).statusCode).toBe(200);
      const holder = t.uniqueId('holder');
      // A user holding a role whose name only starts like it does not hold it.
      await admin.createUser(t.uniqueId('bystander'), { roles: [similar] });
      await admin.createUser(holder, { roles: [role] });
      const refused = await admin.call('DELETE', `/api/v2/roles/${role}`);
      expect({ status: refused.statusCode, code: refused.json().code }).toEqual({ status: 409, code: 400900 });
      expect(refused.json().message).toContain(holder);
      expect(refused.json().message).toContain('1 user ');

      await admin.createUser(holder, { roles: [] });
      const channelId = t.uniqueId('roled');
      await admin.createChannel(channelId, { userIds: [holder] });
      await t.storage.db
        .updateTable('channel_members')
        .set({ roles: JSON.stringify([role]) })
        .where('channel_id', '=', channelId)
        .where('user_id', '=', holder)
        .execute();
      const stillHeld = await admin.call('DELETE', `/api/v2/roles/${role}`);
      expect(stillHeld.statusCode).toBe(409);
      expect(stillHeld.json().message).toContain(`${holder} in ${channelId}`);

      expect((await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [holder] })).statusCode).toBe(200);
      expect((await admin.call('DELETE', `/api/v2/roles/${role}`)).statusCode).toBe(200);
    });
  });

  describe('PUT /oauth/clients/:clientId', () => {
    it("changes a client's URIs and name, answering the client without a secret", async () => {
      const created = await admin.call('POST', '/api/v2/oauth/clients', { name: 'Desk', redirectUris: ['https://desk.example.com/cb'] });
      expect(created.statusCode).toBe(200);
      const { clientId } = created.json();
      const changed = await admin.call('PUT', `/api/v2/oauth/clients/${clientId}`, {
        redirectUris: ['https://desk.example.com/cb2'],
        postLogoutRedirectUris: ['https://desk.example.com/bye'],
      });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({
        clientId,
        name: 'Desk',
        redirectUris: ['https://desk.example.com/cb2'],
        postLogoutRedirectUris: ['https://desk.example.com/bye'],
      });
      expect(changed.json()).not.toHaveProperty('clientSecret');
      const renamed = await admin.call('PUT', `/api/v2/oauth/clients/${clientId}`, { name: 'Help desk' });
      expect(renamed.json()).toMatchObject({ name: 'Help desk', redirectUris: ['https://desk.example.com/cb2'] });
      expect((await admin.call('GET', `/api/v2/oauth/clients/${clientId}`)).json()).toEqual(renamed.json());
    });

    it('refuses bad URIs, an unknown client, a bot client URI, and the console client in words', async () => {
      const { clientId } = (await admin.call('POST', '/api/v2/oauth/clients', { name: 'App', redirectUris: ['https://app.example.com/cb'] })).json();
      const bad = await admin.call('PUT', `/api/v2/oauth/clients/${clientId}`, { redirectUris: ['javascript:alert(1)'] });
      expect(bad.statusCode).toBe(422);
      expect((await admin.call('PUT', `/api/v2/oauth/clients/${clientId}`, { redirectUris: [] })).statusCode).toBe(422);
      expect((await admin.call('GET', `/api/v2/oauth/clients/${clientId}`)).json().redirectUris).toEqual(['https://app.example.com/cb']);
      expect((await admin.call('PUT', `/api/v2/oauth/clients/${t.uniqueId('ghost')}`, { name: 'x' })).statusCode).toBe(404);
      const bot = (await admin.call('POST', '/api/v2/bots', { displayName: 'Helper' })).json();
      expect((await admin.call('PUT', `/api/v2/oauth/clients/${bot.clientId}`, { redirectUris: ['https://x.example.com/cb'] })).statusCode).toBe(422);
      const console = await admin.call('PUT', '/api/v2/oauth/clients/parley-console', { name: 'Mine' });
      expect({ status: console.statusCode, code: console.json().code }).toEqual({ status: 409, code: 400900 });
      expect(console.json().message).toContain('parley-console');
      expect((await admin.call('GET', '/api/v2/oauth/clients/parley-console')).json().name).toBe('Parley console');
    });
  });

  describe('GET /bots', () => {
    it('lists bots with their client, name and webhook URL, never a secret', async () => {
      const created = (await admin.call('POST', '/api/v2/bots', { displayName: 'Deploy bot', webhookUrl: 'https://ci.example.com/hook' })).json();
      const response = await admin.call('GET', '/api/v2/bots');
      expect(response.statusCode).toBe(200);
      const bot = response.json().bots.find((row: { userId: string }) => row.userId === created.userId);
      expect(bot).toEqual({
        userId: created.userId,
        clientId: created.clientId,
        displayName: 'Deploy bot',
        webhookUrl: 'https://ci.example.com/hook',
        createdAt: expect.any(String),
      });
      expect(response.body).not.toContain(created.clientSecret);
    });
  });
});
