import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialStore } from '../../../src/modules/social/social.store.js';
import { createTrayService } from '../../../src/modules/tray/tray.service.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { DAY_MS, type EndUser, type TrayKit, type TrayRecordJson, trayKit } from '../../helpers/tray.js';

/** The rows about notification records in docs/contract.md, States and transitions, and the tray's other rules. */
describe.each(testDatabases)('tray records: states and transitions on %s', (database) => {
  let t: TestApp;
  let kit: TrayKit;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1', PUBLIC_URL: 'https://chat.example' });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const only = async (reader: EndUser): Promise<TrayRecordJson> => {
    const { data } = await kit.history(reader);
    expect(data).toHaveLength(1);
    return data[0] as TrayRecordJson;
  };
  const read = (reader: EndUser, record: TrayRecordJson) =>
    reader.call('POST', '/notifications/read', { verb: record.verb, targetId: record.targetId, targetGroup: record.targetGroup });

  it('a matching event within 10 days updates the record: lastUpdate, actors and description change, and it is unread again', async () => {
    const owner = await kit.user('owner');
    const [ann, bob] = [await kit.user('ann', 'Ann'), await kit.user('bob', 'Bob')];
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    const first = await only(owner);
    expect(first).toMatchObject({ description: 'Ann commented on your post', hasRead: false, actorsCount: 1 });
    const marked = await read(owner, first);
    expect(marked.statusCode).toBe(200);
    expect(marked.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(marked.json()).toBe('success');
    expect((await only(owner)).hasRead).toBe(true);

    kit.advance(10 * DAY_MS - 60_000);
    await kit.comment(bob, postId);
    const updated = await only(owner);
    expect(updated).toMatchObject({ targetGroup: first.targetGroup, description: 'Bob and Ann commented on your post', actorsCount: 2, hasRead: false });
    expect(updated.lastUpdate).toBeGreaterThan(first.lastUpdate + 10 * DAY_MS - 120_000);
    expect(updated.actors.map((actor) => actor.name)).toEqual(['Bob', 'Ann']);
  });

  it('an event more than 10 days after the record was created starts a new record and leaves the old one as it was', async () => {
    const owner = await kit.user('owner');
    const [ann, bob, cy] = [await kit.user('ann', 'Ann'), await kit.user('bob', 'Bob'), await kit.user('cy', 'Cy')];
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    kit.advance(9 * DAY_MS);
    await kit.comment(bob, postId); // inside the window, although the window does not restart
    const old = await only(owner);
    kit.advance(DAY_MS + 1);
    await kit.comment(cy, postId);
    const { data } = await kit.history(owner);
    expect(data).toHaveLength(2);
    expect(data[1]).toEqual(old);
    expect(data[0]).toMatchObject({ targetId: postId, description: 'Cy commented on your post', actorsCount: 1 });
    expect(Number(data[0]?.targetGroup)).toBeGreaterThan(Number(old.targetGroup) + 10 * DAY_MS);
    expect(data[0]?.targetGroup).toBe(String(data[0]?.lastUpdate));
  });

  it('a removal inside the window takes the actor out; a record left without actors disappears', async () => {
    const owner = await kit.user('owner');
    const [ann, bob] = [await kit.user('ann', 'Ann'), await kit.user('bob', 'Bob')];
    const postId = await kit.post(owner, null);
    const annFirst = await kit.comment(ann, postId);
    const annSecond = await kit.comment(ann, postId);
    const bobs = await kit.comment(bob, postId);
    expect((await only(owner)).description).toBe('Bob and Ann commented on your post');

    await bob.ok('DELETE', `/client/v1/comments/${bobs}`);
    const withoutBob = await only(owner);
    expect(withoutBob).toMatchObject({ description: 'Ann commented on your post', actorsCount: 1, actors: [{ id: ann.userId, name: 'Ann' }] });
    await ann.ok('DELETE', `/client/v1/comments/${annSecond}`);
    expect((await only(owner)).description).toBe('Ann commented on your post'); // her first comment still counts
    await owner.ok('DELETE', `/client/v1/comments/${annFirst}`); // the post's owner may delete it too
    expect((await kit.history(owner)).data).toEqual([]);

    // Likes: removing the only like removes the record.
    await kit.like(ann, postId);
    await kit.like(bob, postId);
    expect((await only(owner)).description).toBe('Bob and Ann like your post');
    await ann.ok('DELETE', `/client/v1/posts/${postId}/reactions/like`);
    await kit.settle();
    expect((await only(owner)).description).toBe('Bob likes your post');
    await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/like`);
    await kit.settle();
    expect((await kit.history(owner)).data).toEqual([]);

    // Posts: deleting a post takes the poster out of the community record.
    const member = await kit.user('member');
    const communityId = await kit.community(owner, 'Garden', [member, ann, bob]);
    const annPost = await kit.post(ann, communityId);
    await kit.post(bob, communityId);
    expect((await only(member)).description).toBe('Bob and Ann created post in Garden');
    await ann.ok('DELETE', `/client/v1/posts/${annPost}`);
    await kit.settle();
    expect(await only(member)).toMatchObject({ description: 'Bob posted in Garden', actorsCount: 1 });
  });

  it('a removal for a record older than 10 days changes nothing', async () => {
    const owner = await kit.user('owner');
    const [ann, bob] = [await kit.user('ann', 'Ann'), await kit.user('bob', 'Bob')];
    const postId = await kit.post(owner, null);
    const annComment = await kit.comment(ann, postId);
    await kit.like(bob, postId);
    const before = (await kit.history(owner)).data;
    kit.advance(10 * DAY_MS + 1);
    await ann.ok('DELETE', `/client/v1/comments/${annComment}`);
    await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/like`);
    await kit.settle();
    expect((await kit.history(owner)).data).toEqual(before);
  });

  it('POST /notifications/read marks the record named by verb, targetId and targetGroup, and nothing else', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    await kit.like(ann, postId);
    const [like, comment] = (await kit.history(owner)).data as [TrayRecordJson, TrayRecordJson];
    expect(like.verb).toBe('like');
    expect((await read(owner, comment)).json()).toBe('success');
    const after = (await kit.history(owner)).data;
    expect(after.map((record) => [record.verb, record.hasRead])).toEqual([
      ['like', false],
      ['comment', true],
    ]);

    const missing = await owner.call('POST', '/notifications/read', { verb: 'comment', targetId: postId, targetGroup: '12345' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 400400 });
    // Someone else's record is not found either.
    expect((await read(ann, comment)).statusCode).toBe(404);
    const invalid = await owner.call('POST', '/notifications/read', { verb: 'comment', targetId: postId });
    expect(invalid.statusCode).toBe(422);
    expect((await owner.call('POST', '/notifications/read', { verb: 'share', targetId: postId, targetGroup: '1' })).json().code).toBe(400000);

    // A community record is marked for the reader only.
    const [m1, m2] = [await kit.user('m1'), await kit.user('m2')];
    const communityId = await kit.community(owner, 'Readers', [m1, m2]);
    await kit.post(owner, communityId);
    const record = await only(m1);
    expect((await read(m1, record)).statusCode).toBe(200);
    expect((await only(m1)).hasRead).toBe(true);
    expect((await only(m2)).hasRead).toBe(false);
    const outsider = await kit.user('outsider');
    expect((await read(outsider, record)).statusCode).toBe(404);
  });

  it('records are not returned 90 days after their lastUpdate, even before the purge, which then deletes them', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const oldPost = await kit.post(owner, null);
    const freshPost = await kit.post(owner, null);
    await kit.comment(ann, oldPost);
    await kit.comment(ann, freshPost);
    kit.advance(50 * DAY_MS);
    await kit.comment(ann, freshPost); // a new window: its lastUpdate restarts the 90 days
    expect((await kit.history(owner)).data).toHaveLength(3);

    kit.advance(40 * DAY_MS + 60_000);
    const { data } = await kit.history(owner);
    expect(data).toHaveLength(1);
    expect(data[0]?.targetId).toBe(freshPost);
    const rows = () => t.storage.db.selectFrom('tray_records').select('id').where('owner_key', '=', `u:${owner.userId}`).execute();
    expect(await rows()).toHaveLength(3); // still stored, never shown

    const tray = createTrayService({
      db: t.storage.db,
      clock: t.clock,
      intervalsOf: (userId, since) => createSocialStore(t.storage.db, t.storage.dialect).intervalsOf(userId, since),
    });
    expect(await tray.purgeExpired()).toBeGreaterThanOrEqual(2);
    expect(await rows()).toHaveLength(1);
    const leftovers = await t.storage.db
      .selectFrom('tray_contributions')
      .select('source_key')
      .where(
        'record_id',
        'not in',
        (await rows()).map((row) => row.id),
      )
      .where('actor_id', '=', ann.userId)
      .execute();
    expect(leftovers).toEqual([]);
  });

  it('leaving a community stops its records updating; events during the absence never appear, also after rejoining', async () => {
    const owner = await kit.user('owner');
    const member = await kit.user('member');
    const [pia, quinn, rae] = [await kit.user('pia', 'Pia'), await kit.user('quinn', 'Quinn'), await kit.user('rae', 'Rae')];
    const communityId = await kit.community(owner, 'Walkers', [member, pia, quinn, rae]);
    await kit.post(pia, communityId);
    const seen = await only(member);
    expect(seen.description).toBe('Pia posted in Walkers');

    await member.ok('POST', `/client/v1/communities/${communityId}/leave`);
    await kit.post(pia, communityId);
    await kit.post(quinn, communityId);
    expect(await only(member)).toEqual(seen); // not updated
    expect((await only(owner)).description).toBe('Quinn and Pia created post in Walkers'); // the others' tray moves on

    await member.ok('POST', `/client/v1/communities/${communityId}/join`);
    expect(await only(member)).toEqual(seen); // nothing missed is added on rejoining
    await kit.post(rae, communityId);
    const again = await only(member);
    expect(again).toMatchObject({ targetGroup: seen.targetGroup, description: 'Rae and Pia created post in Walkers', actorsCount: 2 });
    expect(again.actors.map((actor) => actor.name)).toEqual(['Rae', 'Pia']);
    expect(again.lastUpdate).toBeGreaterThan(seen.lastUpdate);

    // A whole window during the absence never appears; the next window's records after rejoining do.
    kit.advance(11 * DAY_MS);
    await member.ok('POST', `/client/v1/communities/${communityId}/leave`);
    await kit.post(quinn, communityId);
    await member.ok('POST', `/client/v1/communities/${communityId}/join`);
    expect((await kit.history(member)).data).toEqual([again]);
    await kit.post(rae, communityId);
    const { data } = await kit.history(member);
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({ description: 'Rae posted in Walkers', actorsCount: 1 });
    expect(data[1]).toEqual(again);
  });

  it('a community post notifies the members at the time of the event, except its author', async () => {
    const owner = await kit.user('owner', 'Owen');
    const early = await kit.user('early');
    const late = await kit.user('late');
    const pia = await kit.user('pia', 'Pia');
    const communityId = await kit.community(owner, 'Club', [early, pia]);
    await kit.post(pia, communityId);
    await late.ok('POST', `/client/v1/communities/${communityId}/join`);
    expect((await kit.history(late)).data).toEqual([]); // joined after the post
    expect((await only(early)).description).toBe('Pia posted in Club');
    expect((await kit.history(pia)).data).toEqual([]); // the author's own post

    await kit.post(owner, communityId);
    expect((await only(late)).description).toBe('Owen posted in Club'); // only what happened since joining
    expect((await only(early)).description).toBe('Owen and Pia created post in Club');
    // Pia sees Owen only; when she posts again she is the latest actor, and her view still ends at Owen.
    const piaView = await only(pia);
    expect(piaView).toMatchObject({ description: 'Owen posted in Club', actorsCount: 1 });
    await kit.post(pia, communityId);
    expect(await only(pia)).toEqual(piaView);
    expect((await only(early)).description).toBe('Pia and Owen created post in Club');
  });

  it('ignores replies, reactions other than like, and the owner acting on their own post', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const postId = await kit.post(owner, null);
    const own = await kit.comment(owner, postId);
    await kit.like(owner, postId);
    await kit.like(ann, postId, 'heart');
    expect((await kit.history(owner)).data).toEqual([]);
    await kit.comment(ann, postId, 'a reply', own);
    expect((await kit.history(owner)).data).toEqual([]);
    const top = await kit.comment(ann, postId);
    const reply = await kit.comment(owner, postId, 'reply to Ann', top);
    await owner.ok('DELETE', `/client/v1/comments/${reply}`);
    expect((await only(owner)).description).toBe('Ann commented on your post');
    expect((await kit.history(ann)).data).toEqual([]); // replies notify nobody
  });

  it('keeps each actor name and image as they were at the event', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann Old');
    const bob = await kit.user('bob', 'Bob');
    await t.storage.db.updateTable('users').set({ avatar: 'ann-avatar-1' }).where('id', '=', ann.userId).execute();
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    expect((await only(owner)).imageUrl).toBe('https://chat.example/file/view/ann-avatar-1?size=large');
    await kit.admin.call('PUT', '/api/v2/users', { userId: ann.userId, displayName: 'Ann New' });
    await t.storage.db.updateTable('users').set({ avatar: 'ann-avatar-2' }).where('id', '=', ann.userId).execute();
    await kit.comment(bob, postId);
    const record = await only(owner);
    expect(record.actors).toEqual([
      { id: bob.userId, name: 'Bob' },
      { id: ann.userId, name: 'Ann Old' },
    ]);
    expect(record.imageUrl).toBe(''); // Bob has no avatar
    await kit.comment(ann, postId);
    const latest = await only(owner);
    expect(latest.actors[0]).toEqual({ id: ann.userId, name: 'Ann New' });
    expect(latest.imageUrl).toBe('https://chat.example/file/view/ann-avatar-2?size=large');
  });

  it('POST /notifications/last-read sets lastReadDate to the read moment; the tray id is stable', async () => {
    const owner = await kit.user('owner');
    const first = await kit.history(owner);
    expect(first.lastRead).toEqual({
      ch_uid: expect.stringMatching(/^[0-9a-f]{24}$/),
      netid_uid: expect.stringMatching(new RegExp(`^[0-9a-f]{24}_${owner.userId}$`)),
      lastReadDate: null,
    });
    const before = t.clock.now();
    const response = await owner.call('POST', '/notifications/last-read');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toBe('success');
    const after = t.clock.now();
    const { lastRead } = await kit.history(owner);
    expect(lastRead.ch_uid).toBe(first.lastRead.ch_uid);
    expect(lastRead.lastReadDate).toBeGreaterThanOrEqual(before);
    expect(lastRead.lastReadDate).toBeLessThanOrEqual(after);
    const other = await kit.user('other');
    expect((await kit.history(other)).lastRead.ch_uid).not.toBe(first.lastRead.ch_uid);
  });

  it('delivers an event exactly once even when the consumer is run again', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    await t.events.consumers.drain();
    await t.events.consumers.drain();
    expect((await only(owner)).actorsCount).toBe(1);
    const contributions = await t.storage.db.selectFrom('tray_contributions').select('source_key').where('actor_id', '=', ann.userId).execute();
    expect(contributions).toHaveLength(1);
  });
});
