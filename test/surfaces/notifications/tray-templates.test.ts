import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { type EndUser, type TrayKit, trayKit } from '../../helpers/tray.js';

/**
 * Every row of the tray template table (docs/contract.md, Notification tray): 1, 2, 3, 4 and 12
 * actors for each verb, with and without a community. Actors act in order 1..N, so the latest is N.
 * The expected strings are written out by hand.
 */
const COUNTS = [1, 2, 3, 4, 12] as const;
const COMMUNITY = 'Summer Collection';

function names(actors: EndUser[], count: number): { latest: string[]; phrase: string } {
  const latest = actors
    .slice(0, count)
    .reverse()
    .map((actor) => actor.name);
  const [a = '', b = '', c = ''] = latest;
  const phrase = count >= 4 ? `${a}, ${b} and ${count - 2} others` : count === 3 ? `${a}, ${b} and ${c}` : count === 2 ? `${a} and ${b}` : a;
  return { latest, phrase };
}

describe.each(testDatabases)('tray templates on %s', (database) => {
  let t: TestApp;
  let kit: TrayKit;
  let owner: EndUser;
  let actors: EndUser[];

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1', PUBLIC_URL: 'https://chat.example' });
    kit = trayKit(t);
    owner = await kit.user('owner', 'Olive Owner');
    actors = [];
    const people = ['John Doe', 'Sara Janes', 'Ann Lee', 'Bo Chen', 'Cy Ortiz', 'Di Park', 'Ed Kim', 'Flo Roy', 'Gus Tan', 'Hal Wu', 'Ida Ng', 'Jo Ruiz'];
    for (const [index, name] of people.entries()) actors.push(await kit.user(`actor${index + 1}`, name));
    // Every actor has an avatar: imageUrl is the latest actor's.
    for (const [index, actor] of actors.entries()) {
      await t.storage.db
        .updateTable('users')
        .set({ avatar: `avatar${index + 1}` })
        .where('id', '=', actor.userId)
        .execute();
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(COUNTS)('post in a community, %i actor(s)', async (count) => {
    const reader = await kit.user('member', 'Mia Member');
    const communityId = await kit.community(owner, COMMUNITY, [reader, ...actors]);
    for (const actor of actors.slice(0, count)) await kit.post(actor, communityId);
    const { latest, phrase } = names(actors, count);
    const verbPhrase = count === 2 ? 'created post in' : 'posted in';
    const [record, ...rest] = (await kit.history(reader)).data;
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      description: `${phrase} ${verbPhrase} ${COMMUNITY}`,
      verb: 'post',
      targetId: communityId,
      targetType: 'community',
      userId: reader.userId,
      networkId: expect.stringMatching(/^[0-9a-f]{24}$/),
      hasRead: false,
      actorsCount: count,
      imageUrl: `https://chat.example/file/view/avatar${count}?size=large`,
    });
    expect(record?.actors.map((actor) => actor.name)).toEqual(latest.slice(0, 3));
    expect(record?.actors[0]?.id).toBe(actors[count - 1]?.userId);
  });

  it.each(COUNTS)('post on a user feed, %i actor(s): notifies nobody', async (count) => {
    const records = async () =>
      Number(
        (
          await t.storage.db
            .selectFrom('tray_records')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await records();
    for (const actor of actors.slice(0, count)) await kit.post(actor, null);
    await kit.settle();
    expect(await records()).toBe(before);
  });

  for (const inCommunity of [true, false]) {
    const where = inCommunity ? 'a community post' : 'a feed post';
    const suffix = inCommunity ? ` in ${COMMUNITY}` : '';

    it.each(COUNTS)(`comment on ${where}, %i actor(s)`, async (count) => {
      const reader = await kit.user('reader', 'Rita Reader');
      const communityId = inCommunity ? await kit.community(reader, COMMUNITY, actors) : null;
      const postId = await kit.post(reader, communityId);
      for (const actor of actors.slice(0, count)) await kit.comment(actor, postId);
      const { latest, phrase } = names(actors, count);
      const [record, ...rest] = (await kit.history(reader)).data;
      expect(rest).toEqual([]);
      expect(record).toMatchObject({
        description: `${phrase} commented on your post${suffix}`,
        verb: 'comment',
        targetId: postId,
        targetType: 'post',
        actorsCount: count,
        imageUrl: `https://chat.example/file/view/avatar${count}?size=large`,
      });
      expect(record?.actors.map((actor) => actor.name)).toEqual(latest.slice(0, 3));
    });

    it.each(COUNTS)(`like of ${where}, %i actor(s)`, async (count) => {
      const reader = await kit.user('reader', 'Rita Reader');
      const communityId = inCommunity ? await kit.community(reader, COMMUNITY, actors) : null;
      const postId = await kit.post(reader, communityId);
      for (const actor of actors.slice(0, count)) await kit.like(actor, postId);
      const { latest, phrase } = names(actors, count);
      const [record, ...rest] = (await kit.history(reader)).data;
      expect(rest).toEqual([]);
      expect(record).toMatchObject({
        description: `${phrase} ${count === 1 ? 'likes' : 'like'} your post${suffix}`,
        verb: 'like',
        targetId: postId,
        targetType: 'post',
        actorsCount: count,
      });
      expect(record?.actors.map((actor) => actor.name)).toEqual(latest.slice(0, 3));
    });
  }

  it('renders the examples of docs/contract.md, Tray wire format, verbatim', async () => {
    const reader = await kit.user('reader', 'Rita Reader');
    const noomers = await kit.community(reader, 'Noomers over 50', actors);
    const postId = await kit.post(reader, noomers);
    await kit.like(actors[1] as EndUser, postId); // Sara Janes
    expect((await kit.history(reader)).data[0]?.description).toBe('Sara Janes likes your post in Noomers over 50');

    const summer = await kit.community(reader, COMMUNITY, actors);
    for (const actor of actors.slice(2)) await kit.post(actor, summer); // ten others first
    await kit.post(actors[1] as EndUser, summer); // Sara Janes
    await kit.post(actors[0] as EndUser, summer); // John Doe, the latest
    const record = (await kit.history(reader)).data.find((item) => item.targetId === summer);
    expect(record?.description).toBe('John Doe, Sara Janes and 10 others posted in Summer Collection');
  });
});
