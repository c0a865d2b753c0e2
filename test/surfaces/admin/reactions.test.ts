import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestEventId, readEventsAfter } from '../../../src/events/outbox.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Reactor {
  reactionName: string;
  userId: string;
  reactionId: string;
  createdAt: string;
}

describe.each(testDatabases)('reactions admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function channelWith(userIds: string[] = []): Promise<string> {
    const channelId = t.uniqueId('react');
    await admin.createChannel(channelId, { userIds });
    return channelId;
  }

  async function postMessage(channelId: string, text = 'hello'): Promise<string> {
    const response = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.messages[0].messageId;
  }

  async function messageOf(messageId: string) {
    const response = await admin.call('GET', `/api/v2/message/${messageId}`);
    expect(response.statusCode).toBe(200);
    return response.json().message as { reactions: Record<string, number>; reactionsCount: number; isDeleted: boolean; updatedAt: string };
  }

  const react = (method: 'POST' | 'DELETE', referenceId: string, reactionName: string, referenceType = 'message') =>
    admin.call(method, '/api/v2/reactions', { referenceId, referenceType, reactionName });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, as };
  }

  /** Every reactor of a message, following paging.next to the end. */
  async function allReactors(messageId: string, reactionName?: string): Promise<Reactor[]> {
    const reactors: Reactor[] = [];
    let url = `/api/v2/reactions?referenceId=${messageId}&options[limit]=100${reactionName ? `&options[reactionName]=${reactionName}` : ''}`;
    for (let pages = 0; pages < 100; pages++) {
      const response = await admin.call('GET', url);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      reactors.push(...body.data.reactions[0].reactors);
      if (body.paging.next === null) return reactors;
      url = `/api/v2/reactions?referenceId=${messageId}&options[token]=${encodeURIComponent(body.paging.next)}`;
    }
    throw new Error('paging did not end');
  }

  it('lists reactors in reaction order (time, then id), however their ids sort: two instances react in one second', async () => {
    const messageId = await postMessage(await channelWith());
    // Object ids of two processes made in one second sort by their random middle bytes, not by time.
    const base = Date.now();
    const rows = [
      { id: `${'f'.repeat(23)}1`, at: base },
      { id: `${'0'.repeat(23)}2`, at: base + 1 },
      { id: `${'8'.repeat(23)}3`, at: base + 2 },
    ];
    await t.storage.db
      .insertInto('message_reactions')
      .values(rows.map((row) => ({ id: row.id, message_id: messageId, user_id: 'admin-env', reaction_name: `r${row.id.slice(-1)}`, created_at: row.at })))
      .execute();
    const seen: string[] = [];
    let url = `/api/v2/reactions?referenceId=${messageId}&options[limit]=1`;
    for (let page = 0; page < 5; page++) {
      const body = (await admin.call('GET', url)).json();
      seen.push(...body.data.reactions[0].reactors.map((reactor: Reactor) => reactor.reactionId));
      if (body.paging.next === null) break;
      url = `/api/v2/reactions?referenceId=${messageId}&options[token]=${encodeURIComponent(body.paging.next)}`;
    }
    expect(seen).toEqual(rows.map((row) => row.id));
  });

  it('adds and removes the admin user reaction; the message record follows', async () => {
    const messageId = await postMessage(await channelWith());
    const before = await messageOf(messageId);
    expect(before).toMatchObject({ reactions: {}, reactionsCount: 0 });

    const added = await react('POST', messageId, 'like');
    expect(added.statusCode, added.body).toBe(200);
    expect(added.headers['content-type']).toBe('application/json; charset=utf-8');
    const { addedId } = added.json();
    expect(addedId).toMatch(/^[0-9a-f]{24}$/);
    expect((await react('POST', messageId, 'love')).statusCode).toBe(200);
    expect(await messageOf(messageId)).toMatchObject({ reactions: { like: 1, love: 1 }, reactionsCount: 2 });

    const listed = await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&referenceType=message`);
    expect(listed.statusCode).toBe(200);
    const body = listed.json();
    expect(body.status).toBe('success');
    expect(body.data.reactions).toHaveLength(1);
    expect(body.data.reactions[0]).toMatchObject({ referenceId: messageId, referenceType: 'message' });
    expect(body.data.reactions[0].reactors.map((r: Reactor) => [r.reactionName, r.userId])).toEqual([
      ['like', 'admin-env'],
      ['love', 'admin-env'],
    ]);
    expect(body.data.reactions[0].reactors[0].reactionId).toBe(addedId);
    expect(Date.parse(body.data.reactions[0].reactors[0].createdAt)).not.toBeNaN();
    expect(body.data.users.map((user: { userId: string }) => user.userId)).toEqual(['admin-env']);
    expect(body.paging).toEqual({ next: null, prev: null });

    const removed = await react('DELETE', messageId, 'like');
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ removedId: addedId });
    expect(await messageOf(messageId)).toMatchObject({ reactions: { love: 1 }, reactionsCount: 1 });
  });

  it('counts reaction names that are also names of object properties like any other', async () => {
    const messageId = await postMessage(await channelWith());
    const since = await latestEventId(t.storage.db);
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    for (const name of names) expect((await react('POST', messageId, name)).statusCode).toBe(200);
    const expected = names.map((name) => [name, 1]).sort();
    const message = await messageOf(messageId);
    expect({ reactions: Object.entries(message.reactions).sort(), reactionsCount: message.reactionsCount }).toEqual({ reactions: expected, reactionsCount: 4 });
    const events = await readEventsAfter(t.storage.db, since, 100);
    const last = events[events.length - 1]?.data as { message: { reactions: Record<string, number> } };
    expect(Object.entries(last.message.reactions).sort()).toEqual(expected);
    expect((await react('DELETE', messageId, '__proto__')).statusCode).toBe(200);
    const after = await messageOf(messageId);
    expect({ reactions: Object.entries(after.reactions).sort(), reactionsCount: after.reactionsCount }).toEqual({
      reactions: expected.slice(1),
      reactionsCount: 3,
    });
  });

  it('accepts the form encoding the contract lists (docs/contract.md, Requests)', async () => {
    const messageId = await postMessage(await channelWith());
    const added = await admin.form('POST', '/api/v2/reactions', `referenceId=${messageId}&referenceType=message&reactionName=clap`);
    expect(added.statusCode, added.body).toBe(200);
    const removed = await admin.form('DELETE', '/api/v2/reactions', `referenceId=${messageId}&referenceType=message&reactionName=clap`);
    expect(removed.json()).toEqual({ removedId: added.json().addedId });
  });

  it('refuses a second identical reaction (409), a missing one (404) and leaves the counts alone', async () => {
    const messageId = await postMessage(await channelWith());
    expect((await react('POST', messageId, 'like')).statusCode).toBe(200);
    const again = await react('POST', messageId, 'like');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 400315 });
    const missing = await react('DELETE', messageId, 'love');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 400400, message: 'Reaction not found.' });
    expect(await messageOf(messageId)).toMatchObject({ reactions: { like: 1 }, reactionsCount: 1 });
  });

  it('answers 404 for an unknown or deleted message, and keeps a deleted message as it was', async () => {
    const unknown = await react('POST', 'ffffffffffffffffffffffff', 'like');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 400400, message: 'Message not found.' });

    const messageId = await postMessage(await channelWith());
    expect((await react('POST', messageId, 'like')).statusCode).toBe(200);
    expect((await admin.call('DELETE', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
    for (const response of [
      await react('POST', messageId, 'love'),
      await react('DELETE', messageId, 'like'),
      await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}`),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 400400, message: 'Message not found.' });
    }
    expect(await messageOf(messageId)).toMatchObject({ isDeleted: true, reactions: { like: 1 }, reactionsCount: 1 });
  });

  it('refuses a referenceType other than message with 422, and bad fields with 4xx', async () => {
    const messageId = await postMessage(await channelWith());
    for (const response of [
      await react('POST', messageId, 'like', 'post'),
      await react('DELETE', messageId, 'like', 'comment'),
      await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&referenceType=user`),
    ]) {
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ status: 'error', code: 500000 });
      expect(response.json().data.fields[0].field).toMatch(/referenceType$/);
    }
    const missingName = await admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message' });
    expect(missingName.statusCode).toBe(422);
    const tooLong = await react('POST', messageId, 'x'.repeat(51));
    expect(tooLong.statusCode).toBe(422);
    const spaced = await react('POST', messageId, 'thumbs up');
    expect(spaced.statusCode).toBe(422);
    const badLimit = await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&options[limit]=101`);
    expect(badLimit.statusCode).toBe(422);
    const badToken = await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&options[token]=abc.def`);
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json()).toMatchObject({ code: 400000, message: 'Query token is invalid.' });
    // Nothing of the refused requests was written.
    expect(await messageOf(messageId)).toMatchObject({ reactions: {}, reactionsCount: 0 });
  });

  it('pages reactors with skip, limit, reactionName and tokens, both ways', async () => {
    const users = await Promise.all(Array.from({ length: 7 }, () => userWithToken('pager')));
    const messageId = await postMessage(await channelWith(users.map((user) => user.userId)));
    // In sequence, so reaction order is known: each user likes, odd ones also love.
    for (const [index, user] of users.entries()) {
      expect((await user.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
      if (index % 2 === 1) expect((await user.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'love' })).statusCode).toBe(200);
    }
    const all = await allReactors(messageId);
    expect(all).toHaveLength(10);
    expect(new Set(all.map((r) => r.reactionId)).size).toBe(10);

    const likes = await allReactors(messageId, 'like');
    expect(likes.map((r) => r.userId)).toEqual(users.map((user) => user.userId));

    const skipped = (await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&options[reactionName]=like&options[skip]=2&options[limit]=3`)).json();
    expect(skipped.data.reactions[0].reactors.map((r: Reactor) => r.userId)).toEqual(users.slice(2, 5).map((user) => user.userId));
    expect(skipped.data.users.map((user: { userId: string }) => user.userId).sort()).toEqual(
      users
        .slice(2, 5)
        .map((user) => user.userId)
        .sort(),
    );
    expect(skipped.paging.prev).not.toBeNull();

    const next = (
      await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&options[token]=${encodeURIComponent(skipped.paging.next)}&options[limit]=3`)
    ).json();
    expect(next.data.reactions[0].reactors.map((r: Reactor) => r.userId)).toEqual(users.slice(5, 7).map((user) => user.userId));
    expect(next.paging.next).toBeNull();
    const back = (
      await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}&options[token]=${encodeURIComponent(next.paging.prev)}&options[limit]=3`)
    ).json();
    expect(back.data.reactions[0].reactors.map((r: Reactor) => r.userId)).toEqual(users.slice(2, 5).map((user) => user.userId));

    // A token belongs to its message and filter.
    const otherMessage = await postMessage(await channelWith());
    expect(
      (await admin.call('GET', `/api/v2/reactions?referenceId=${otherMessage}&options[token]=${encodeURIComponent(skipped.paging.next)}`)).statusCode,
    ).toBe(400);
    expect(
      (
        await admin.call(
          'GET',
          `/api/v2/reactions?referenceId=${messageId}&options[reactionName]=love&options[token]=${encodeURIComponent(skipped.paging.next)}`,
        )
      ).statusCode,
    ).toBe(400);
  });

  it('orders most-reacted by count of that name, and applies the limit rules', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => userWithToken('fan')));
    const channelId = await channelWith(users.map((user) => user.userId));
    const name = `star${t.uniqueId('n').replaceAll('-', '')}`.slice(0, 40);
    const messages: string[] = [];
    for (let i = 0; i < 14; i++) messages.push(await postMessage(channelId, `m${i}`));
    // Message i gets (i % 5) reactions of `name`; message 0 gets many of another name only.
    for (const [i, messageId] of messages.entries()) {
      for (let k = 0; k < i % 5; k++) {
        const who = k === 0 ? null : users[k - 1];
        const response = who
          ? await who.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: name })
          : await react('POST', messageId, name);
        expect(response.statusCode, response.body).toBe(200);
      }
    }
    for (const user of users) await user.as('POST', `/client/v1/messages/${messages[0]}/reactions`, { reactionName: 'other' });

    const answer = await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}`);
    expect(answer.statusCode).toBe(200);
    const top = answer.json() as Array<{ messageId: string; reactionsCount: number }>;
    // limit absent: 10. Counts 4,4,3,3,2,2,2,1,1,1 (of the 11 messages with any); newer first on a tie.
    expect(top).toHaveLength(10);
    expect(top.map((row) => row.reactionsCount)).toEqual([4, 4, 3, 3, 3, 2, 2, 2, 1, 1]);
    expect(top.slice(0, 2).map((row) => row.messageId)).toEqual([messages[9], messages[4]]);
    expect(top.some((row) => row.messageId === messages[0])).toBe(false);

    expect((await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=0`)).json()).toEqual(top);
    expect((await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=3`)).json()).toEqual(top.slice(0, 3));
    const hundred = (await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=100`)).json();
    expect(hundred).toHaveLength(11);
    for (const bad of ['limit=101', 'limit=-1', 'limit=two']) {
      const response = await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&${bad}`);
      expect({ bad, status: response.statusCode }).toEqual({ bad, status: 422 });
    }
    expect((await admin.call('GET', '/api/v2/reactions/messages/most')).statusCode).toBe(422);
    expect((await admin.call('GET', '/api/v2/reactions/messages/most?reactionName=nobody-uses-this')).json()).toEqual([]);

    // A deleted message leaves the ranking; removing reactions moves a message down.
    expect((await admin.call('DELETE', `/api/v2/message/${messages[9]}`)).statusCode).toBe(200);
    expect((await react('DELETE', messages[4] as string, name)).statusCode).toBe(200);
    const after = (await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=2`)).json();
    expect(after).toEqual([
      { messageId: messages[13], reactionsCount: 3 },
      { messageId: messages[8], reactionsCount: 3 },
    ]);
  });

  it('passes over more deleted messages than one index batch holds', async () => {
    const channelId = await channelWith();
    const name = `rare${t.uniqueId('n').replaceAll('-', '')}`.slice(0, 40);
    const messages: string[] = [];
    for (let i = 0; i < 25; i++) messages.push(await postMessage(channelId, `d${i}`));
    for (const messageId of messages) expect((await react('POST', messageId, name)).statusCode).toBe(200);
    // Newer first on a tie: the 22 newest are the top rows; delete them all.
    for (const messageId of messages.slice(3)) expect((await admin.call('DELETE', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
    const one = (await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=1`)).json();
    expect(one).toEqual([{ messageId: messages[2], reactionsCount: 1 }]);
    const all = (await admin.call('GET', `/api/v2/reactions/messages/most?reactionName=${name}&limit=100`)).json();
    expect(all).toEqual([messages[2], messages[1], messages[0]].map((messageId) => ({ messageId, reactionsCount: 1 })));
  });

  it('keeps the summary exact when 200 different names race, then 200 adds and removes race', async () => {
    // Different names share no count row: only the message lock orders their summary rewrites.
    const messageId = await postMessage(await channelWith());
    const names = Array.from({ length: 300 }, (_, i) => `r${i}`);
    const added = await Promise.all(names.slice(0, 200).map((name) => react('POST', messageId, name)));
    expect(added.filter((response) => response.statusCode !== 200)).toEqual([]);
    const first = await messageOf(messageId);
    expect(first.reactionsCount).toBe(200);
    expect(first.reactions).toEqual(Object.fromEntries(names.slice(0, 200).map((name) => [name, 1])));

    const mixed = await Promise.all([
      ...names.slice(0, 100).map((name) => react('DELETE', messageId, name)),
      ...names.slice(200).map((name) => react('POST', messageId, name)),
    ]);
    expect(mixed.filter((response) => response.statusCode !== 200)).toEqual([]);
    const second = await messageOf(messageId);
    expect(second.reactionsCount).toBe(200);
    expect(second.reactions).toEqual(Object.fromEntries(names.slice(100).map((name) => [name, 1])));
  });

  it('keeps the reactions map and count exact under 370 concurrent adds and removes, with one event per change', async () => {
    const users = await Promise.all(Array.from({ length: 60 }, () => userWithToken('crowd')));
    const messageId = await postMessage(await channelWith(users.map((user) => user.userId)));
    const names = Array.from({ length: 100 }, (_, i) => `n${i}`);
    const startEvent = await latestEventId(t.storage.db);
    const reactUrl = `/client/v1/messages/${messageId}/reactions`;

    // Round 1: 220 concurrent adds (every user likes and loves, the admin adds 100 names: distinct names
    // take no common count row, so only the message lock keeps their summaries from overwriting each other).
    const round1 = await Promise.all([
      ...names.map((name) => react('POST', messageId, name)),
      ...users.flatMap((user) => [user.as('POST', reactUrl, { reactionName: 'like' }), user.as('POST', reactUrl, { reactionName: 'love' })]),
    ]);
    expect(round1.map((response) => response.statusCode).filter((status) => status !== 200)).toEqual([]);
    const expected1: Record<string, number> = { like: 60, love: 60, ...Object.fromEntries(names.map((name) => [name, 1])) };
    expect(await messageOf(messageId)).toMatchObject({ reactions: expected1, reactionsCount: 220 });

    // Round 2: 150 concurrent changes racing on the same rows: half the likes go, every love goes,
    // the admin re-adds ten names (409 each) and removes ten, users 30..59 add `wow` twice each (one wins).
    const round2 = await Promise.all([
      ...users.slice(0, 30).map((user) => user.as('DELETE', `${reactUrl}/like`)),
      ...users.map((user) => user.as('DELETE', `${reactUrl}/love`)),
      ...names.slice(0, 10).map((name) => react('POST', messageId, name)),
      ...names.slice(10, 20).map((name) => react('DELETE', messageId, name)),
      ...users.slice(30).flatMap((user) => [user.as('POST', reactUrl, { reactionName: 'wow' }), user.as('POST', reactUrl, { reactionName: 'wow' })]),
    ]);
    const statuses = round2.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(30 + 60 + 10 + 30);
    expect(statuses.filter((status) => status === 409)).toHaveLength(10 + 30);
    const expected2: Record<string, number> = {
      like: 30,
      wow: 30,
      ...Object.fromEntries([...names.slice(0, 10), ...names.slice(20)].map((name) => [name, 1])),
    };
    const message = await messageOf(messageId);
    expect(message.reactions).toEqual(expected2);
    expect(message.reactionsCount).toBe(150);

    // The reactor rows agree with the summary.
    const reactors = await allReactors(messageId);
    expect(reactors).toHaveLength(150);
    const counted: Record<string, number> = {};
    for (const reactor of reactors) counted[reactor.reactionName] = (counted[reactor.reactionName] ?? 0) + 1;
    expect(counted).toEqual(expected2);
    expect((await admin.call('GET', '/api/v2/reactions/messages/most?reactionName=like')).json()).toContainEqual({ messageId, reactionsCount: 30 });

    // One event per successful change, written with it; the last one carries the final summary.
    const events = (await readEventsAfter(t.storage.db, startEvent, 1_000_000)).filter(
      (event) => event.type.startsWith('reaction.') && (event.data as { reaction: { referenceId: string } }).reaction.referenceId === messageId,
    );
    expect(events.filter((event) => event.type === 'reaction.added')).toHaveLength(220 + 30);
    expect(events.filter((event) => event.type === 'reaction.removed')).toHaveLength(30 + 60 + 10);
    const last = events.at(-1) as { channelId: string | null; data: { message: { reactions: Record<string, number>; reactionsCount: number } } };
    expect(last.data.message).toMatchObject({ messageId, reactions: expected2, reactionsCount: 150 });
    expect(last.channelId).not.toBeNull();
  });
});
