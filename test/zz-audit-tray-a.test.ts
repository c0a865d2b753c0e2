import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { DAY_MS, type EndUser, type TrayKit, trayKit } from './helpers/tray.js';

describe('audit tray a', () => {
  let t: TestApp;
  let kit: TrayKit;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1' });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('authz on comments and reactions', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const eve = await kit.user('eve', 'Eve');
    const c = await kit.community(owner, 'Club', [ann]);
    const postId = await kit.post(owner, c);
    const commentId = await kit.comment(ann, postId);
    const del = await eve.call('DELETE', `/client/v1/comments/${commentId}`);
    console.log('eve deletes ann comment', del.statusCode, del.body);
    const react = await eve.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' });
    console.log('eve (non-member) likes', react.statusCode, react.body);
    const cm = await eve.call('POST', `/client/v1/posts/${postId}/comments`, { text: 'x' });
    console.log('eve (non-member) comments', cm.statusCode, cm.body);
    const unknown = await eve.call('POST', `/client/v1/posts/nope/reactions`, { reactionName: 'like' });
    console.log('unknown post', unknown.statusCode, unknown.body);
    const delPost = await ann.call('DELETE', `/client/v1/posts/${postId}`);
    console.log('ann deletes owner post', delPost.statusCode, delPost.body);
    const unl = await eve.call('DELETE', `/client/v1/posts/${postId}/reactions/like`);
    console.log('eve unlike', unl.statusCode, unl.body);
  });

  it('hostile inputs', async () => {
    const u = await kit.user('h');
    const reqs: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['GET', '/notifications/history?searchAfter=-1', undefined],
      ['GET', '/notifications/history?searchAfter=1.5', undefined],
      ['GET', '/notifications/history?searchAfter=99999999999999999999', undefined],
      ['GET', '/notifications/history?searchAfter=9007199254740991', undefined],
      ['GET', '/notifications/history?searchAfter=0', undefined],
      ['GET', '/notifications/history?searchAfter[]=1', undefined],
      ['GET', '/notifications/history?searchAfter=1&searchAfter=2', undefined],
      ['GET', '/notifications/history?searchAfter[a]=1', undefined],
      ['GET', '/notifications/history?searchAfter=', undefined],
      ['GET', '/notifications/history?searchAfter=abc', undefined],
      ['GET', '/notifications/history?searchAfter=1e3', undefined],
      ['GET', '/notifications/history?searchAfter=0x10', undefined],
      ['POST', '/notifications/read', { verb: 'like', targetId: 'x', targetGroup: '9999999999999999' }],
      ['POST', '/notifications/read', { verb: 'post', targetId: '\u0000', targetGroup: '1' }],
      ['POST', '/notifications/read', { verb: 'post', targetId: '😀'.repeat(50), targetGroup: '1' }],
      ['POST', '/notifications/read', { verb: '__proto__', targetId: 'x', targetGroup: '1' }],
      ['POST', '/notifications/read', { verb: 'post', targetId: 'x', targetGroup: '-1' }],
      ['POST', '/notifications/read', { verb: 'post', targetId: 'x', targetGroup: 5 }],
      ['POST', '/notifications/read', { verb: ['post'], targetId: 'x', targetGroup: '1' }],
      ['POST', '/client/v1/communities', { communityId: '😀'.repeat(50), displayName: 'x' }],
      ['POST', '/client/v1/communities', { communityId: '__proto__', displayName: '\u0000' }],
      ['POST', '/client/v1/communities', { displayName: 'x'.repeat(200) }],
      ['POST', `/client/v1/communities/${'😀'.repeat(50)}/join`, undefined],
      ['POST', `/client/v1/posts`, { text: ' ' }],
      ['POST', `/client/v1/posts`, { text: '\u0000' }],
      ['POST', `/client/v1/posts`, { text: 'a', communityId: 'nope' }],
      ['DELETE', `/client/v1/posts/${'a'.repeat(50)}`, undefined],
      ['DELETE', `/client/v1/comments/${'a'.repeat(50)}`, undefined],
      ['DELETE', `/client/v1/posts/x/reactions/${'a'.repeat(50)}`, undefined],
    ];
    for (const [method, url, payload] of reqs) {
      const r = await u.call(method as 'GET', url, payload);
      console.log(method, url, JSON.stringify(payload)?.slice(0, 80), '->', r.statusCode, r.body.slice(0, 200));
      await new Promise((res) => setTimeout(res, 220));
    }
  });

  it('reactions: proto names, double like concurrently, like+unlike race', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const postId = await kit.post(owner, null);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const r = await ann.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: name });
      console.log('react', name, r.statusCode, r.body);
      const d = await ann.call('DELETE', `/client/v1/posts/${postId}/reactions/${name}`);
      console.log('unreact', name, d.statusCode, d.body);
    }
    const both = await Promise.all([1, 2, 3].map(() => ann.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' })));
    console.log('concurrent likes', both.map((r) => `${r.statusCode} ${r.body}`));
    const race = await Promise.all([
      ann.call('DELETE', `/client/v1/posts/${postId}/reactions/like`),
      ann.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' }),
      ann.call('DELETE', `/client/v1/posts/${postId}/reactions/like`),
      ann.call('POST', `/client/v1/posts/${postId}/reactions`, { reactionName: 'like' }),
    ]);
    console.log('race', race.map((r) => `${r.statusCode} ${r.body}`));
    await kit.settle();
    const post = await t.storage.db.selectFrom('posts').selectAll().where('id', '=', postId).executeTakeFirst();
    const rows = await t.storage.db.selectFrom('post_reactions').selectAll().where('post_id', '=', postId).execute();
    console.log('post reactions', post?.reactions, 'rows', rows.length);
    console.log('history', JSON.stringify((await kit.history(owner)).data));
  });

  it('paging repeat after an unlike / comment deletion between pages', async () => {
    const owner = await kit.user('owner');
    const cam = await kit.user('cam', 'Cam');
    const x = await kit.user('x', 'Xia');
    const posts: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      const p = await kit.post(owner, null);
      await kit.comment(cam, p);
      posts.push(p);
    }
    const xc = await kit.comment(x, posts[0] as string);
    const page1 = await kit.history(owner);
    console.log('page1', page1.data.map((r) => `${r.targetId.slice(-4)}:${r.actorsCount}`), page1.lastRecordDate);
    await x.ok('DELETE', `/client/v1/comments/${xc}`);
    const page2 = await kit.history(owner, page1.lastRecordDate ?? undefined);
    console.log('page2', page2.data.map((r) => `${r.targetId.slice(-4)}:${r.actorsCount}`), page2.lastRecordDate);
    const keys = [...page1.data, ...page2.data].map((r) => `${r.verb}/${r.targetId}/${r.targetGroup}`);
    console.log('duplicates', keys.length - new Set(keys).size);
  });

  it('post deletion: what remains', async () => {
    const owner = await kit.user('owner', 'Owen');
    const ann = await kit.user('ann', 'Ann');
    const bob = await kit.user('bob', 'Bob');
    const c = await kit.community(owner, 'Club', [ann, bob]);
    const postId = await kit.post(ann, c);
    await kit.comment(bob, postId);
    await kit.like(bob, postId);
    console.log('owner before', JSON.stringify((await kit.history(owner)).data.map((r) => r.description)));
    console.log('ann before', JSON.stringify((await kit.history(ann)).data.map((r) => r.description)));
    await ann.ok('DELETE', `/client/v1/posts/${postId}`);
    console.log('owner after', JSON.stringify((await kit.history(owner)).data.map((r) => r.description)));
    console.log('ann after', JSON.stringify((await kit.history(ann)).data.map((r) => r.description)));
    const cmts = await t.storage.db.selectFrom('comments').selectAll().where('post_id', '=', postId).execute();
    const del = await bob.call('DELETE', `/client/v1/comments/${cmts[0]?.id}`);
    console.log('delete comment on deleted post', del.statusCode, del.body);
    console.log('ann after comment delete', JSON.stringify((await kit.history(ann)).data.map((r) => r.description)));
  });

  it('leave, partial views, markRead by ex-member and non-member', async () => {
    const owner = await kit.user('owner', 'Owen');
    const m = await kit.user('m', 'Mem');
    const out = await kit.user('out', 'Out');
    const [p, q, r] = [await kit.user('p', 'Pia'), await kit.user('q', 'Quinn'), await kit.user('r', 'Rae')];
    const c = await kit.community(owner, 'Club', [m, p, q, r]);
    await kit.post(p, c);
    kit.advance(DAY_MS);
    await m.ok('POST', `/client/v1/communities/${c}/leave`);
    await kit.post(q, c);
    await kit.post(r, c);
    const mv = (await kit.history(m)).data;
    console.log('m view', JSON.stringify(mv));
    const ov = (await kit.history(owner)).data;
    console.log('owner view', JSON.stringify(ov.map((x) => [x.description, x.targetGroup, x.lastUpdate])));
    const rec = ov[0];
    const rd = await out.call('POST', '/notifications/read', { verb: 'post', targetId: c, targetGroup: rec?.targetGroup });
    console.log('non-member read', rd.statusCode, rd.body);
    const rd2 = await m.call('POST', '/notifications/read', { verb: 'post', targetId: c, targetGroup: rec?.targetGroup });
    console.log('ex-member read', rd2.statusCode, rd2.body);
    console.log('m view after read', JSON.stringify((await kit.history(m)).data.map((x) => [x.hasRead, x.lastUpdate])));
    // rejoin, new post by another; m should see Pia + new, not Quinn/Rae
    await m.ok('POST', `/client/v1/communities/${c}/join`);
    await kit.post(owner, c);
    console.log('m after rejoin', JSON.stringify((await kit.history(m)).data.map((x) => [x.description, x.actorsCount, x.hasRead])));
    // m posts now; m is top actor
    await kit.post(m, c);
    console.log('m after own post', JSON.stringify((await kit.history(m)).data.map((x) => [x.description, x.actorsCount, x.hasRead, x.imageUrl])));
  });
});

export type _ = EndUser;
