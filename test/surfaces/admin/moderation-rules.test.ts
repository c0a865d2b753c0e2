import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../../src/app.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

interface RuleRecord {
  ruleId: string;
  regex: string;
  isMatchExactWord?: boolean;
  isEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

type Kind = 'blacklist' | 'whitelist';

describe.each(testDatabases)('blacklist and whitelist rules on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let channelId: string;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    channelId = t.uniqueId('moderated');
    await admin.createChannel(channelId);
  });
  afterAll(async () => {
    await t.close();
  });
  // Rules are server-wide: every test starts with none.
  afterEach(async () => {
    for (const kind of ['blacklist', 'whitelist'] as const) {
      const ruleIds = (await list(kind)).map((rule) => rule.ruleId);
      if (ruleIds.length > 0) expect((await admin.call('DELETE', `/api/v2/${kind}/records`, { ruleIds })).statusCode).toBe(200);
    }
  });

  async function list(kind: Kind, query = ''): Promise<RuleRecord[]> {
    const response = await admin.call('GET', `/api/v2/${kind}/records${query}`);
    expect(response.statusCode).toBe(200);
    return response.json().data.results;
  }

  async function add(kind: Kind, regexs: string[], extra: Record<string, unknown> = {}): Promise<RuleRecord[]> {
    const response = await admin.call('POST', `/api/v2/${kind}/records`, { regexs, ...extra });
    if (response.statusCode !== 200) throw new Error(`add ${kind}: ${response.statusCode} ${response.body}`);
    return response.json().data.results;
  }

  async function storedCount(): Promise<number> {
    const row = await t.storage.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  function sendOn(app: BuiltApp['app'], text: string): Promise<LightMyRequestResponse> {
    return app.inject({
      method: 'POST',
      url: '/api/v2/message',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: { channelId, type: 'text', data: { text } },
    });
  }
  const send = (text: string) => sendOn(t.app, text);

  /** Sends and checks the answer; a refused message must leave nothing stored. */
  async function expectRefused(text: string, code: 400308 | 400309): Promise<void> {
    const before = await storedCount();
    const response = await send(text);
    expect({ text, status: response.statusCode, code: response.json().code }).toEqual({ text, status: 403, code });
    expect(await storedCount()).toBe(before);
  }
  async function expectAccepted(text: string): Promise<void> {
    const response = await send(text);
    expect({ text, status: response.statusCode }).toEqual({ text, status: 200 });
  }

  describe('records', () => {
    it('creates one blacklist rule per word, lists them and filters by word', async () => {
      const created = await add('blacklist', ['Alpha', 'beta', 'ALPHA']);
      expect(created).toHaveLength(2);
      expect(created[0]).toEqual({
        ruleId: expect.stringMatching(/^[0-9a-f]{24}$/),
        regex: 'Alpha',
        isMatchExactWord: false,
        isEnabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(Date.parse(created[0]?.createdAt ?? '')).not.toBeNaN();

      const form = await admin.form('POST', '/api/v2/blacklist/records', 'regexs[]=gamma&regexs[]=delta&isMatchExactWord=true');
      expect(form.statusCode).toBe(200);
      expect(form.json()).toMatchObject({
        status: 'success',
        data: {
          results: [
            { regex: 'gamma', isMatchExactWord: true },
            { regex: 'delta', isMatchExactWord: true },
          ],
        },
      });
      const single = await admin.form('POST', '/api/v2/blacklist/records', 'regexs=epsilon');
      expect(single.json().data.results.map((rule: RuleRecord) => rule.regex)).toEqual(['epsilon']);

      const all = await admin.call('GET', '/api/v2/blacklist/records');
      expect(all.json()).toMatchObject({ status: 'success' });
      expect(all.json().data.results.map((rule: RuleRecord) => rule.regex)).toEqual(['Alpha', 'beta', 'gamma', 'delta', 'epsilon']);
      expect((await list('blacklist', '?regexs=ALPHA')).map((rule) => rule.regex)).toEqual(['Alpha']);
      expect((await list('blacklist', '?regexs[]=beta&regexs[]=nothing')).map((rule) => rule.regex)).toEqual(['beta']);
      expect(await list('whitelist')).toEqual([]);
    });

    it('refuses bad input and words that already have a rule, creating nothing', async () => {
      await add('blacklist', ['taken']);
      const cases: Array<[unknown, number]> = [
        [{}, 422],
        [{ regexs: [] }, 422],
        [{ regexs: ['   '] }, 422],
        [{ regexs: ['\u200B'] }, 422],
        [{ regexs: Array.from({ length: 101 }, (_, i) => `w${i}`) }, 422],
        [{ regexs: ['x'.repeat(201)] }, 422],
        [{ regexs: ['ok'], isMatchExactWord: 'maybe' }, 422],
        [{ regexs: ['fresh', 'TAKEN'] }, 409],
        // Fullwidth letters are the same word.
        [{ regexs: ['\uff34\uff41\uff4b\uff45\uff4e'] }, 409],
      ];
      for (const [body, status] of cases) {
        const response = await admin.call('POST', '/api/v2/blacklist/records', body);
        expect({ body, status: response.statusCode }).toEqual({ body, status });
      }
      const blank = await admin.call('POST', '/api/v2/blacklist/records', { regexs: ['ok', ' '] });
      expect(blank.json()).toMatchObject({ code: 500000, data: { fields: [{ field: 'body.regexs[1]' }] } });
      const conflict = await admin.call('POST', '/api/v2/blacklist/records', { regexs: ['Taken'] });
      expect(conflict.json()).toMatchObject({ status: 'error', code: 400315 });
      expect((await list('blacklist')).map((rule) => rule.regex)).toEqual(['taken']);
    });

    it('changes a rule with PUT: a new word resets isMatchExactWord; other fields change alone', async () => {
      const [rule] = await add('blacklist', ['foo'], { isMatchExactWord: true });
      const ruleId = rule?.ruleId as string;
      const renamed = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId: 'bar' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toMatchObject({ status: 'success', data: { ruleId, regex: 'bar', isMatchExactWord: false, isEnabled: true } });
      const disabled = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { isEnabled: false });
      expect(disabled.json().data).toMatchObject({ regex: 'bar', isMatchExactWord: false, isEnabled: false });
      const exact = await admin.form('PUT', `/api/v2/blacklist/records/${ruleId}`, 'isMatchExactWord=true');
      expect(exact.json().data).toMatchObject({ regex: 'bar', isMatchExactWord: true, isEnabled: false });
      const both = await admin.form('PUT', `/api/v2/blacklist/records/${ruleId}`, 'ruleId=Baz&isMatchExactWord=true&isEnabled=true');
      expect(both.json().data).toMatchObject({ regex: 'Baz', isMatchExactWord: true, isEnabled: true });
      expect(await list('blacklist')).toEqual([both.json().data]);

      await add('blacklist', ['other']);
      const missing = await admin.call('PUT', '/api/v2/blacklist/records/000000000000000000000000', { ruleId: 'x' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ code: 400400, message: 'Rule not found.' });
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, {})).statusCode).toBe(422);
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId: 'OTHER' })).json().code).toBe(400315);
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId: 'BAZ' })).statusCode).toBe(200);
      // A blacklist rule is not a whitelist rule.
      expect((await admin.call('PUT', `/api/v2/whitelist/records/${ruleId}`, { ruleId: 'example.com' })).statusCode).toBe(404);
    });

    it('deletes all or none: unknown ruleIds are 404 and listed', async () => {
      const rules = await add('blacklist', ['one', 'two', 'three']);
      const [one, two, three] = rules.map((rule) => rule.ruleId) as [string, string, string];
      const unknown = await admin.call('DELETE', '/api/v2/blacklist/records', { ruleIds: [one, 'nope-1', 'nope-2'] });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 400400, message: 'Rule not found: nope-1, nope-2.' });
      expect(await list('blacklist')).toHaveLength(3);
      expect((await admin.call('DELETE', '/api/v2/whitelist/records', { ruleIds: [one] })).statusCode).toBe(404);
      expect((await admin.call('DELETE', '/api/v2/blacklist/records', {})).statusCode).toBe(422);

      const deleted = await admin.form('DELETE', '/api/v2/blacklist/records', `ruleIds[]=${one}&ruleIds[]=${two}`);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toMatchObject({
        status: 'success',
        data: {
          results: [
            { ruleId: one, regex: 'one' },
            { ruleId: two, regex: 'two' },
          ],
        },
      });
      expect((await list('blacklist')).map((rule) => rule.ruleId)).toEqual([three]);
    });

    it('manages whitelist records: URLs are validated, one rule per host and path', async () => {
      const created = await add('whitelist', ['example.com', 'https://Docs.Example.org/guide/']);
      expect(created[0]).toEqual({
        ruleId: expect.any(String),
        regex: 'example.com',
        isEnabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(created[1]?.regex).toBe('https://Docs.Example.org/guide/');
      const invalid = await admin.call('POST', '/api/v2/whitelist/records', { regexs: ['fine.org', 'not a url'] });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().data.fields).toEqual([{ field: 'body.regexs[1]', message: expect.stringContaining('domain or URL') }]);
      expect((await admin.call('POST', '/api/v2/whitelist/records', { regexs: ['http://EXAMPLE.com/'] })).json().code).toBe(400315);
      expect((await list('whitelist', '?regexs=https://example.com')).map((rule) => rule.regex)).toEqual(['example.com']);

      const ruleId = created[0]?.ruleId as string;
      const changed = await admin.call('PUT', `/api/v2/whitelist/records/${ruleId}`, { ruleId: 'example.net', isEnabled: false });
      expect(changed.json().data).toEqual({ ruleId, regex: 'example.net', isEnabled: false, createdAt: created[0]?.createdAt, updatedAt: expect.any(String) });
      expect((await admin.call('DELETE', '/api/v2/whitelist/records', { ruleIds: [ruleId] })).json().data.results[0].regex).toBe('example.net');
    });

    it('creates each word once when the same word is posted concurrently', async () => {
      const responses = await Promise.all(Array.from({ length: 8 }, () => admin.call('POST', '/api/v2/blacklist/records', { regexs: ['racy'] })));
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      expect(await list('blacklist')).toHaveLength(1);
    });
  });

  describe('blacklist enforcement on message create', () => {
    const cases: Array<{ name: string; word: string; exact: boolean; refused: string[]; accepted: string[] }> = [
      { name: 'ASCII, exact word', word: 'darn', exact: true, refused: ['Darn it', 'well, DARN.'], accepted: ['darned', 'undarn', 'd a r n'] },
      { name: 'ASCII, anywhere', word: 'darn', exact: false, refused: ['undarnable', 'DARNED'], accepted: ['d-a-r-n'] },
      { name: '"lava" and the exact word "va"', word: 'va', exact: true, refused: ['va', 'ça va?'], accepted: ['lava', 'vas'] },
      { name: 'a literal with a dot', word: 'a.b', exact: false, refused: ['xa.bx'], accepted: ['axb', 'ab'] },
      { name: 'Cyrillic, exact word', word: 'Слово', exact: true, refused: ['Это СЛОВО!', 'слово'], accepted: ['словоформа', 'предисловие'] },
      { name: 'Cyrillic, anywhere', word: 'слово', exact: false, refused: ['словоформа'], accepted: ['слава'] },
      { name: 'Thai, anywhere', word: 'สวัสดี', exact: false, refused: ['สวัสดีครับ'], accepted: ['ครับ'] },
      { name: 'Thai, exact word', word: 'สวัสดี', exact: true, refused: ['สวัสดี ครับ', '(สวัสดี)'], accepted: ['สวัสดีครับ'] },
      { name: 'accented, NFC rule', word: 'café', exact: true, refused: ['un café', 'UN CAFE\u0301!'], accepted: ['cafés', 'un cafe'] },
      { name: 'accented, NFD rule', word: 'cafe\u0301', exact: true, refused: ['un café', 'un CAFÉ'], accepted: ['cafe\u0301s', 'cafe'] },
      { name: 'accented, anywhere', word: 'ñandú', exact: false, refused: ['ÑANDÚES'], accepted: ['nandu'] },
    ];

    it.each(cases)('$name', async ({ word, exact, refused, accepted }) => {
      await add('blacklist', [word], { isMatchExactWord: exact });
      for (const text of refused) await expectRefused(text, 400308);
      for (const text of accepted) await expectAccepted(text);
    });

    it('checks every key and string value of custom data, and image captions', async () => {
      await add('blacklist', ['darn']);
      const before = await storedCount();
      const custom = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { a: { b: ['fine', 'oh DARN'] } } });
      expect(custom.statusCode).toBe(403);
      expect(custom.json()).toMatchObject({ code: 400308, data: { fields: [{ field: 'body.data.a.b[1]' }] } });
      const blockedKey = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { darn: 'keys are shown too', n: 1 } });
      expect(blockedKey.statusCode).toBe(403);
      expect(blockedKey.json()).toMatchObject({ code: 400308, data: { fields: [{ field: 'body.data' }] } });
      expect(blockedKey.body).not.toContain('darn');

      const { payload, contentType } = multipartBody(
        [
          ['channelId', channelId],
          ['caption', 'darn view'],
        ],
        [{ name: 'file', fileName: 'p.jpg', contentType: 'image/jpeg', data: await makeJpeg(40, 30) }],
      );
      const image = await t.app.inject({
        method: 'POST',
        url: '/api/v2/messages/images',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
        payload,
      });
      expect(image.statusCode).toBe(403);
      expect(image.json().code).toBe(400308);
      expect(await storedCount()).toBe(before);
    });

    it('ignores disabled rules', async () => {
      const [rule] = await add('blacklist', ['zonk']);
      await expectRefused('zonk', 400308);
      await admin.call('PUT', `/api/v2/blacklist/records/${rule?.ruleId}`, { isEnabled: false });
      await expectAccepted('zonk');
      await admin.call('PUT', `/api/v2/blacklist/records/${rule?.ruleId}`, { isEnabled: true });
      await expectRefused('zonk', 400308);
    });

    it('follows rules changed while the server runs: create, update, delete', async () => {
      await expectAccepted('blip and blop');
      const [rule] = await add('blacklist', ['blip'], { isMatchExactWord: true });
      await expectRefused('blip and blop', 400308);
      await admin.call('PUT', `/api/v2/blacklist/records/${rule?.ruleId}`, { ruleId: 'blop', isMatchExactWord: true });
      await expectAccepted('blip');
      await expectRefused('and blop', 400308);
      await admin.call('DELETE', '/api/v2/blacklist/records', { ruleIds: [rule?.ruleId] });
      await expectAccepted('blip and blop');
    });
  });

  describe('whitelist enforcement on message create', () => {
    it('lets every link through while no enabled whitelist rule exists', async () => {
      await expectAccepted('see https://evil.com and evil.org/x');
      const [rule] = await add('whitelist', ['example.com']);
      await admin.call('PUT', `/api/v2/whitelist/records/${rule?.ruleId}`, { isEnabled: false });
      await expectAccepted('see https://evil.com and evil.org/x');
    });

    it('allows links to whitelisted hosts and their subdomains, in every form, and refuses the rest', async () => {
      await add('whitelist', ['example.com', 'docs.example.org/guide', 'пример.рф']);
      for (const text of [
        'no links here, e.g. Node.js v1.2',
        'http://example.com',
        'see https://example.com/any/path?q=1#top',
        'bare example.com/path and sub.example.com',
        'HTTPS://WWW.EXAMPLE.COM/Upper',
        'trailing punctuation: (example.com).',
        'docs.example.org/guide/intro',
        'https://пример.рф/страница',
      ]) {
        await expectAccepted(text);
      }
      for (const text of [
        'https://evil.com',
        'bare evil.com',
        'example.com.evil.com',
        'https://example.com@evil.com/',
        'ok example.com but not evil.org',
        'docs.example.org/guidebook',
        'docs.example.org/guide/../admin',
        'evil\u3002com',
        'другой.рф',
      ]) {
        await expectRefused(text, 400309);
      }
      const custom = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { link: 'https://evil.com' } });
      expect(custom.json()).toMatchObject({ code: 400309, data: { fields: [{ field: 'body.data.link', message: expect.stringContaining('evil.com') }] } });
    });

    it('follows whitelist changes while the server runs', async () => {
      const [rule] = await add('whitelist', ['example.com']);
      await expectRefused('see example.net', 400309);
      await admin.call('PUT', `/api/v2/whitelist/records/${rule?.ruleId}`, { ruleId: 'example.net' });
      await expectAccepted('see example.net');
      await expectRefused('see example.com', 400309);
      await admin.call('DELETE', '/api/v2/whitelist/records', { ruleIds: [rule?.ruleId] });
      await expectAccepted('see example.com and example.org');
    });
  });

  it('judges reaction names on messages and posts like texts, storing nothing refused', async () => {
    const userId = t.uniqueId('reactor');
    await admin.createUser(userId, { displayName: 'Reactor' });
    const roomId = t.uniqueId('room');
    await admin.createChannel(roomId, { userIds: [userId] });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const asUser = (method: 'POST', url: string, payload: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    const messageId = (await admin.call('POST', '/api/v2/message', { channelId: roomId, type: 'text', data: { text: 'hello' } })).json().data.messages[0]
      .messageId;
    const post = await asUser('POST', '/client/v1/posts', { text: 'my post' });
    expect(post.statusCode, post.body).toBe(200);
    const postId = post.json().postId;
    await add('blacklist', ['rude']);
    await add('whitelist', ['example.com']);
    const attempts = (reactionName: string) => [
      admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName }),
      asUser('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName }),
      asUser('POST', `/client/v1/posts/${postId}/reactions`, { reactionName }),
    ];
    for (const [reactionName, code] of [
      ['SoRude', 400308],
      ['evil.com', 400309],
    ] as const) {
      for (const attempt of attempts(reactionName)) {
        const response = await attempt;
        expect({ reactionName, status: response.statusCode, code: response.json().code, field: response.json().data?.fields?.[0]?.field }).toEqual({
          reactionName,
          status: 403,
          code,
          field: 'body.reactionName',
        });
      }
    }
    const rudePost = await asUser('POST', '/client/v1/posts', { text: 'so rude' });
    expect({ status: rudePost.statusCode, field: rudePost.json().data.fields[0].field }).toEqual({ status: 403, field: 'body.text' });
    const message = (await admin.call('GET', `/api/v2/message/${messageId}`)).json().message;
    expect({ reactions: message.reactions, reactionsCount: message.reactionsCount }).toEqual({ reactions: {}, reactionsCount: 0 });
    const stored = await t.storage.db.selectFrom('posts').select('reactions').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.reactions)).toEqual({});
    for (const attempt of attempts('polite')) expect((await attempt).statusCode).toBe(200);
    expect((await admin.call('GET', `/api/v2/message/${messageId}`)).json().message.reactions).toEqual({ polite: 2 });
  });

  it.runIf(database === 'postgres')('reaches another instance on the same database without a shared bus', async () => {
    const peer = await t.startPeer();
    const eventually = async (text: string, status: number) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const response = await sendOn(peer.app, text);
        if (response.statusCode === status || Date.now() > deadline) return response.statusCode;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    expect(await eventually('peer word', 200)).toBe(200);
    const [rule] = await add('blacklist', ['peer']);
    expect(await eventually('peer word', 403)).toBe(403);
    await admin.call('DELETE', '/api/v2/blacklist/records', { ruleIds: [rule?.ruleId] });
    expect(await eventually('peer word', 200)).toBe(200);
  });
});
