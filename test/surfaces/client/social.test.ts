import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { latestEventId } from '../../../src/events/outbox.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { type TrayKit, trayKit } from '../../helpers/tray.js';

/** The tray's sources in the client API: communities, posts, comments, post reactions (docs/contract.md, Surfaces beyond the original). */
describe.each(testDatabases)('communities, posts, comments and reactions on %s', (database) => {
  let t: TestApp;
  let kit: TrayKit;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1' });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  let address: string | null = null;
  /** The app on a real port, for the stream (bound once, on 127.0.0.1). */
  async function listening(): Promise<string> {
    address ??= await t.app.listen({ port: 0, host: '127.0.0.1' });
    return address;
  }

  it('creates, joins and leaves communities', async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const communityId = t.uniqueId('club');
    const created = await ann.call('POST', '/client/v1/communities', { communityId, displayName: 'Club' });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ communityId, displayName: 'Club', memberCount: 1, createdBy: ann.userId, isMember: true });
    expect((await bob.call('POST', '/client/v1/communities', { communityId, displayName: 'Again' })).json().code).toBe(400315);
    const generated = await bob.ok<{ communityId: string }>('POST', '/client/v1/communities', { displayName: 'Generated' });
    expect(generated.communityId).toMatch(/^[0-9a-f]{24}$/);

    expect(await bob.ok('POST', `/client/v1/communities/${communityId}/join`)).toMatchObject({ memberCount: 2, isMember: true });
    expect(await bob.ok('POST', `/client/v1/communities/${communityId}/join`)).toMatchObject({ memberCount: 2 }); // idempotent
    expect(await bob.ok('POST', `/client/v1/communities/${communityId}/leave`)).toMatchObject({ memberCount: 1, isMember: false });
    expect(await bob.ok('POST', `/client/v1/communities/${communityId}/leave`)).toMatchObject({ memberCount: 1 });
    expect((await bob.call('POST', `/client/v1/communities/${t.uniqueId('nope')}/join`)).json().code).toBe(400400);
    const stints = await t.storage.db
      .selectFrom('community_members')
      .selectAll()
      .where('user_id', '=', bob.userId)
      .where('community_id', '=', communityId)
      .execute();
    expect(stints).toHaveLength(1);
    expect(stints[0]?.left_at).toBeGreaterThan(Number(stints[0]?.joined_at));
  });

  it('posts in a community only as a member, or on the own feed; texts up to 20,000 characters', async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const communityId = await kit.community(ann, 'Posters');
    const post = await ann.ok<Record<string, unknown>>('POST', '/client/v1/posts', { communityId, text: 'hi' });
    expect(post).toMatchObject({ communityId, userId: ann.userId, text: 'hi', commentsCount: 0, reactions: {}, isDeleted: false });
    expect(post.postId).toMatch(/^[0-9a-f]{24}$/);
    const outsider = await bob.call('POST', '/client/v1/posts', { communityId, text: 'hi' });
    expect(outsider.statusCode).toBe(403);
    expect(outsider.json().code).toBe(400301);
    expect((await bob.ok('POST', '/client/v1/posts', { text: 'my feed' })).communityId).toBeNull();
    expect((await bob.call('POST', '/client/v1/posts', { text: 'x'.repeat(20_000) })).statusCode).toBe(200);
    const tooLong = await bob.call('POST', '/client/v1/posts', { text: 'x'.repeat(20_001) });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().code).toBe(500000);
    expect((await bob.call('POST', '/client/v1/posts', { text: '' })).statusCode).toBe(422);
    expect((await bob.call('POST', '/client/v1/posts', { communityId: t.uniqueId('none'), text: 'x' })).statusCode).toBe(404);
  });

  it('comments and replies; deletes by the author or the post owner; reacts once per name', async () => {
    const [ann, bob, cy] = [await kit.user('ann'), await kit.user('bob'), await kit.user('cy')];
    const postId = await kit.post(ann, null);
    const comment = await bob.ok<Record<string, unknown>>('POST', `/client/v1/posts/${postId}/comments`, { text: 'nice' });
    expect(comment).toMatchObject({ postId, userId: bob.userId, parentId: null, text: 'nice' });
    const reply = await ann.ok<{ commentId: string; parentId: string }>('POST', `/client/v1/posts/${postId}/comments`, {
      text: 'thanks',
      parentId: comment.commentId as string,
    });
    expect(reply.parentId).toBe(comment.commentId);
    expect((await ann.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'x', parentId: 'nope' })).statusCode).toBe(404);
    expect((await cy.call('DELETE', `/client/v1/comments/${comment.commentId as string}`)).json().code).toBe(400301);
    expect((await bob.call('DELETE', `/client/v1/comments/${comment.commentId as string}`)).json()).toMatchObject({ status: 'success' });
    expect((await bob.call('DELETE', `/client/v1/comments/${comment.commentId as string}`)).statusCode).toBe(404);

    const added = await bob.ok<{ addedId: string }>('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' });
    expect((await bob.ok<{ addedId: string }>('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' })).addedId).toBe(added.addedId);
    await cy.ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'heart' });
    const stored = await t.storage.db.selectFrom('posts').select(['reactions', 'comments_count']).where('id', '=', postId).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.reactions)).toEqual({ like: 1, heart: 1 });
    expect(stored.comments_count).toBe(1);
    expect(await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/like`)).toEqual({ removedId: added.addedId });
    expect((await bob.call('DELETE', `/client/v1/posts/${postId}/reactions/like`)).statusCode).toBe(404);

    expect((await bob.call('DELETE', `/client/v1/posts/${postId}`)).json().code).toBe(400301);
    expect(await ann.ok('DELETE', `/client/v1/posts/${postId}`)).toEqual({ status: 'success', postId });
    expect((await bob.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'late' })).statusCode).toBe(404);
  });

  it('counts post reaction names that are also names of object properties like any other', async () => {
    const [ann, bob, cy] = [await kit.user('ann'), await kit.user('bob'), await kit.user('cy')];
    const postId = await kit.post(ann, null);
    for (const user of [bob, cy]) await user.ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'constructor' });
    for (const reactionName of ['__proto__', 'toString']) await bob.ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName });
    const counts = async () => {
      const stored = await t.storage.db.selectFrom('posts').select('reactions').where('id', '=', postId).executeTakeFirstOrThrow();
      return Object.entries(JSON.parse(stored.reactions) as Record<string, unknown>).sort();
    };
    expect(await counts()).toEqual([
      ['__proto__', 1],
      ['constructor', 2],
      ['toString', 1],
    ]);
    await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/constructor`);
    await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/__proto__`);
    expect(await counts()).toEqual([
      ['constructor', 1],
      ['toString', 1],
    ]);
  });

  it("tells the owner's stream that their tray changed (tray.updated), and no one else's", async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const postId = await kit.post(ann, null);
    await kit.settle();
    const since = await latestEventId(t.storage.db);
    const comment = await bob.ok<{ commentId: string }>('POST', `/client/v1/posts/${postId}/comments`, { text: 'nice' });
    await bob.ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' });
    await bob.ok('DELETE', `/client/v1/posts/${postId}/reactions/like`);
    expect(comment.commentId).toBeTruthy();
    await kit.settle();
    await t.events.relay.flush();

    const frames = async (reader: { token: string }) => {
      const address = await listening();
      const socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${reader.token}&since=${since}`);
      const received: Array<{ type: string; data: { verb?: string; targetId?: string; targetGroup?: string } }> = [];
      socket.on('message', (raw) => received.push(JSON.parse(raw.toString())));
      await new Promise<void>((resolve, reject) => {
        socket.on('open', () => resolve());
        socket.on('error', reject);
      });
      // The replay is sent right after the upgrade; a short bounded wait collects it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      socket.close();
      return received.filter((frame) => frame.type === 'tray.updated');
    };
    const annFrames = await frames(ann);
    // One frame per changed record per consumer batch: the like and its removal may share one.
    expect([...new Set(annFrames.map((frame) => `${frame.data.verb} ${frame.data.targetId}`))]).toEqual([`comment ${postId}`, `like ${postId}`]);
    const history = await kit.history(ann);
    const commentRecord = history.data.find((record) => record.verb === 'comment');
    expect(annFrames[0]?.data.targetGroup).toBe(commentRecord?.targetGroup);
    expect(await frames(bob)).toEqual([]);
  });

  it('needs membership to comment on or like a community post', async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const communityId = await kit.community(ann, 'Members only');
    const postId = await kit.post(ann, communityId);
    expect((await bob.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'hi' })).json().code).toBe(400301);
    expect((await bob.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' })).json().code).toBe(400301);
    await bob.ok('POST', `/client/v1/communities/${communityId}/join`);
    expect((await bob.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'hi' })).statusCode).toBe(200);
  });

  it('writes each change and its domain event in one transaction', async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const postId = await kit.post(ann, null);
    await kit.comment(bob, postId);
    await kit.like(bob, postId);
    const events = await t.storage.db.selectFrom('outbox').select(['type', 'payload']).where('user_id', '=', bob.userId).orderBy('id').execute();
    expect(events.map((event) => event.type)).toEqual(['comment.created', 'post.reaction.added']);
    const data = JSON.parse(events[0]?.payload ?? '{}');
    expect(data).toMatchObject({ actor: { id: bob.userId, name: bob.name, avatarId: null }, post: { postId, authorId: ann.userId, communityId: null } });
    expect(typeof data.at).toBe('number');
  });
});
