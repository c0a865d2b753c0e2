import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Page tokens on the admin API (messages, channels, users), as docs/contract.md, Records, says: a token that was altered is a 400000 "Query token is
 * invalid", and "`token` continues a previous page": sent alone it continues that query, filters and
 * page size included; sent with other filters it is refused.
 */
describe.each(testDatabases)('page tokens on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let channelId: string;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    channelId = t.uniqueId('tok');
    await admin.createChannel(channelId);
    for (let i = 1; i <= 12; i += 1) {
      const r = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `m${i}` }, tags: [i % 2 ? 'odd' : 'even'] });
      expect(r.statusCode, r.body).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const segments = (r: { json: () => { data: { messages: Array<{ channelSegment: number }> } } }) => r.json().data.messages.map((m) => m.channelSegment);

  /** Alterations of the signature part that Buffer.from(..., 'base64url') silently decodes to the same bytes. */
  function alterations(token: string): string[] {
    const [body, signature] = token.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const original = Buffer.from(signature, 'base64url');
    const lastVariant = [...alphabet]
      .map((c) => signature.slice(0, -1) + c)
      .find((s) => s !== signature && Buffer.from(s, 'base64url').equals(original)) as string;
    return [`${body}.${signature}==`, `${body}.${signature}!!`, `${body}.${signature.slice(0, 3)}*${signature.slice(3)}`, `${body}.${lastVariant}`];
  }

  it('messages: refuses a token whose signature is re-spelled (padding, stray characters, spare bits) with 400000', async () => {
    const page = await admin.call('POST', '/api/v2/messages', { channelId, options: { first: 3 } });
    const token = page.json().paging.next as string;
    const answers: number[] = [];
    for (const altered of alterations(token)) {
      expect(altered).not.toBe(token);
      const r = await admin.call('POST', '/api/v2/messages', { channelId, options: { token: altered } });
      answers.push(r.statusCode);
    }
    // Contract: every altered token is 400 / 400000 "Query token is invalid.".
    expect(answers).toEqual([400, 400, 400, 400]);
  });

  it('channels and users: refuse an altered token too', async () => {
    for (let i = 0; i < 3; i += 1) await admin.createChannel(t.uniqueId('tokc'));
    for (let i = 0; i < 3; i += 1) await admin.createUser(t.uniqueId('toku'));
    const channels = await admin.call('POST', '/api/v2/channels', { options: { limit: 1 } });
    const channelToken = channels.json().paging.next as string;
    const users = await admin.call('GET', '/api/v2/users?limit=1');
    const userToken = users.json().paging.next as string;
    const statuses: number[] = [];
    for (const altered of alterations(channelToken)) {
      statuses.push((await admin.call('POST', '/api/v2/channels', { options: { limit: 1, token: altered } })).statusCode);
    }
    for (const altered of alterations(userToken)) {
      statuses.push((await admin.call('GET', `/api/v2/users?limit=1&pageToken=${encodeURIComponent(altered)}`)).statusCode);
    }
    expect(statuses).toEqual(Array(8).fill(400));
  });

  it('messages: a token sent alone continues its tag-filtered query', async () => {
    const first = await admin.call('POST', '/api/v2/messages', { channelId, tags: ['odd'], options: { first: 2 } });
    expect(segments(first)).toEqual([1, 3]);
    const token = first.json().paging.next as string;
    // "token continues a previous page": the token alone (as the SDKs send it) should give the next odd messages.
    const next = await admin.call('POST', '/api/v2/messages', { channelId, options: { token } });
    expect(next.statusCode).toBe(200);
    expect(segments(next)).toEqual([5, 7]);
  });

  it('messages: a token sent with another filter is refused', async () => {
    const first = await admin.call('POST', '/api/v2/messages', { channelId, tags: ['odd'], options: { first: 2 } });
    const token = first.json().paging.next as string;
    const other = await admin.call('POST', '/api/v2/messages', { channelId, tags: ['even'], options: { token } });
    // The reactions listing refuses a token used with another filter (400000); the message query mixes them.
    expect(other.statusCode).toBe(400);
  });

  it('channels: a token sent alone continues its tag-filtered list with its page size', async () => {
    const tagged = t.uniqueId('tag');
    for (let i = 0; i < 4; i += 1) await admin.createChannel(t.uniqueId('tagged'), { tags: [tagged] });
    for (let i = 0; i < 12; i += 1) await admin.createChannel(t.uniqueId('plain'));
    const first = await admin.call('POST', '/api/v2/channels', { tags: [tagged], options: { limit: 2 } });
    expect(first.json().results).toHaveLength(2);
    const next = await admin.call('POST', '/api/v2/channels', { options: { token: first.json().paging.next } });
    const results = next.json().results as Array<{ channel: { tags: string[] } }>;
    // Expected: the remaining 2 tagged channels.
    expect(results.map((r) => r.channel.tags)).toEqual([[tagged], [tagged]]);
  });

  it('users: a pageToken sent alone continues its search', async () => {
    const prefix = t.uniqueId('zsearch');
    for (let i = 0; i < 3; i += 1) await admin.createUser(`${prefix}-${i}`);
    for (let i = 0; i < 3; i += 1) await admin.createUser(`${prefix}x`.replace('zsearch', 'zzother') + i);
    const first = await admin.call('GET', `/api/v2/users?search=${prefix}&limit=2`);
    expect(first.json().users).toHaveLength(2);
    const next = await admin.call('GET', `/api/v2/users?limit=2&pageToken=${encodeURIComponent(first.json().paging.next)}`);
    const ids = (next.json().users as Array<{ info: { userId: string } }>).map((u) => u.info.userId);
    expect(ids).toEqual([`${prefix}-2`]);
  });

  it('messages: a page that reaches the newest message has no next token, with or without before', async () => {
    const newest = await admin.call('POST', '/api/v2/messages', { channelId, options: { last: 3 } });
    expect(segments(newest)).toEqual([10, 11, 12]);
    expect(newest.json().paging.next).toBeNull();
    const same = await admin.call('POST', '/api/v2/messages', { channelId, options: { before: 1000, last: 3 } });
    expect(segments(same)).toEqual([10, 11, 12]);
    // Same rows, same place: no next, as without `before` (not a token that leads to an empty page).
    expect(same.json().paging.next).toBeNull();
  });
});
