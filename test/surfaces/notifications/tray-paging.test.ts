import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { type EndUser, type HistoryJson, type TrayKit, type TrayRecordJson, trayKit } from '../../helpers/tray.js';

/** History paging: 10 per page, newest lastUpdate first, searchAfter strictly below, lastRecordDate null at the end. */
describe.each(testDatabases)('tray history paging on %s', (database) => {
  let t: TestApp;
  let kit: TrayKit;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1' });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const key = (record: TrayRecordJson) => `${record.verb}/${record.targetId}/${record.targetGroup}`;

  async function ownerWithCommentedPosts(count: number): Promise<{ owner: EndUser; commenter: EndUser; posts: string[] }> {
    const owner = await kit.user('owner');
    const commenter = await kit.user('commenter', 'Cam');
    const posts: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const postId = await kit.post(owner, null, `post ${i}`);
      await kit.comment(commenter, postId);
      posts.push(postId);
    }
    return { owner, commenter, posts };
  }

  function expectStrictlyDescending(records: TrayRecordJson[]): void {
    for (let i = 1; i < records.length; i += 1) expect((records[i] as TrayRecordJson).lastUpdate).toBeLessThan((records[i - 1] as TrayRecordJson).lastUpdate);
  }

  it('pages 25 records as 10, 10 and 5, with lastRecordDate null only on the last page', async () => {
    const { owner, posts } = await ownerWithCommentedPosts(25);
    const pages: HistoryJson[] = [await kit.history(owner)];
    while (pages[pages.length - 1]?.lastRecordDate !== null) pages.push(await kit.history(owner, pages[pages.length - 1]?.lastRecordDate ?? undefined));
    expect(pages.map((page) => page.data.length)).toEqual([10, 10, 5]);
    expect(pages[0]?.lastRecordDate).toBe(pages[0]?.data[9]?.lastUpdate);
    const all = pages.flatMap((page) => page.data);
    expectStrictlyDescending(all);
    expect(all.map((record) => record.targetId)).toEqual([...posts].reverse());
    // searchAfter is strictly below: the record at exactly that time is not repeated.
    const boundary = pages[0]?.data[9] as TrayRecordJson;
    const below = await kit.history(owner, boundary.lastUpdate);
    expect(below.data[0]?.lastUpdate).toBeLessThan(boundary.lastUpdate);
    const atNext = await kit.history(owner, boundary.lastUpdate + 1);
    expect(atNext.data[0]).toEqual(boundary);
  });

  it('answers lastRecordDate null when the records fill exactly one or two pages, and an empty page after the end', async () => {
    const ten = await ownerWithCommentedPosts(10);
    const one = await kit.history(ten.owner);
    expect(one.data).toHaveLength(10);
    expect(one.lastRecordDate).toBeNull();
    const twenty = await ownerWithCommentedPosts(20);
    const first = await kit.history(twenty.owner);
    expect(first.lastRecordDate).not.toBeNull();
    const second = await kit.history(twenty.owner, first.lastRecordDate ?? undefined);
    expect(second.data).toHaveLength(10);
    expect(second.lastRecordDate).toBeNull();
    const past = await kit.history(twenty.owner, second.data[9]?.lastUpdate);
    expect(past).toMatchObject({ data: [], lastRecordDate: null });
  });

  it('pages without skipping or repeating while records are being updated', async () => {
    const { owner, posts } = await ownerWithCommentedPosts(30);
    const others = [await kit.user('x', 'Xia'), await kit.user('y', 'Yul'), await kit.user('z', 'Zed')];
    const page1 = await kit.history(owner);
    const seen: TrayRecordJson[] = [...page1.data];
    // While the user pages, activity updates one record already seen, one on the next page and
    // one further down: each jumps to the top.
    const updated = [posts[28], posts[15], posts[3]] as string[];
    for (const [index, postId] of updated.entries()) await kit.comment(others[index] as EndUser, postId);
    let after = page1.lastRecordDate;
    while (after !== null) {
      const page = await kit.history(owner, after);
      seen.push(...page.data);
      after = page.lastRecordDate;
      // More activity between pages.
      await kit.comment(others[0] as EndUser, posts[0] as string);
    }
    // No record twice, lastUpdate strictly falling from page to page.
    expect(new Set(seen.map(key)).size).toBe(seen.length);
    expectStrictlyDescending(seen);
    // Every record that was not updated meanwhile was seen exactly once.
    const untouched = posts.filter((postId) => !updated.includes(postId) && postId !== posts[0]);
    for (const postId of untouched) expect(seen.filter((record) => record.targetId === postId)).toHaveLength(1);
    // A fresh read shows the updated records first, newest first.
    const fresh = await kit.history(owner);
    expect(fresh.data.slice(0, 4).map((record) => record.targetId)).toEqual([posts[0], posts[3], posts[15], posts[28]]);
    expect(fresh.data[1]).toMatchObject({ description: 'Zed and Cam commented on your post', actorsCount: 2 });
  });

  it('gives every record of one tray its own lastUpdate, also for events in the same millisecond, and merges community and own records', async () => {
    const owner = await kit.user('owner');
    const members = [await kit.user('m1', 'Mo'), await kit.user('m2', 'Ny')];
    const communities: string[] = [];
    for (let i = 0; i < 6; i += 1) communities.push(await kit.community(owner, `Club ${i}`, members));
    const postId = await kit.post(owner, null);
    // Writes sent at once land in the same few milliseconds.
    await Promise.all([
      ...communities.map((communityId, i) => (members[i % 2] as EndUser).ok('POST', '/client/v1/posts', { communityId, text: 'hi' })),
      (members[0] as EndUser).ok('POST', `/client/v1/posts/${postId}/comments`, { text: 'hi' }),
      (members[1] as EndUser).ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' }),
    ]);
    const all = await kit.allHistory(owner);
    expect(all).toHaveLength(8);
    expect(new Set(all.map((record) => record.lastUpdate)).size).toBe(8);
    expectStrictlyDescending(all);
    expect(all.filter((record) => record.verb === 'post')).toHaveLength(6);
  });
  it('answers every one of many concurrent comments, likes, unlikes, joins and posts touching one post and one community', async () => {
    // On PostgreSQL these lock the same post and community rows and the one activity clock; taken in
    // different orders they deadlocked and one request answered 500.
    const owner = await kit.user('owner');
    const members: EndUser[] = [];
    for (let i = 0; i < 8; i += 1) members.push(await kit.user(`busy${i}`));
    const communityId = await kit.community(owner, 'Busy club', members.slice(0, 4));
    const postId = await kit.post(owner, communityId);
    for (const member of members.slice(0, 4)) await kit.like(member, postId, 'wow');
    const joining = members.slice(4);
    const calls = [
      ...members
        .slice(0, 4)
        .flatMap((member) => [
          member.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'at once' }),
          member.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' }),
          member.call('DELETE', `/client/v1/posts/${postId}/reactions/wow`),
          member.call('POST', '/client/v1/posts', { communityId, text: 'me too' }),
        ]),
      ...joining.map((member) => member.call('POST', `/client/v1/communities/${communityId}/join`)),
    ];
    const answers = await Promise.all(calls);
    expect(answers.map((response) => response.statusCode)).toEqual(calls.map(() => 200));
    // The post's counters match what was done (there is no client route that reads one post back).
    const post = await t.storage.db.selectFrom('posts').select(['comments_count', 'reactions']).where('id', '=', postId).executeTakeFirstOrThrow();
    expect(post.comments_count).toBe(4);
    expect(JSON.parse(post.reactions)).toEqual({ like: 4 });
  });
});
