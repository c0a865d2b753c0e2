import { afterAll, beforeAll, describe, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from './helpers/test-app.js';
import { DAY_MS, type TrayKit, trayKit } from './helpers/tray.js';

describe('audit tray c', () => {
  let t: TestApp;
  let kit: TrayKit;
  let base = '';
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1' });
    kit = trayKit(t);
    base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  });
  afterAll(async () => {
    await t.close();
  });

  it('stream frames for the post owner when someone comments / likes', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const frames: string[] = [];
    const socket = new WebSocket(`${base}/client/v1/stream?token=${owner.token}`);
    socket.on('message', (data) => frames.push(String(data)));
    const opened = await new Promise<string>((resolve) => {
      socket.on('open', () => resolve('open'));
      socket.on('error', (e) => resolve(`error ${e.message}`));
      socket.on('unexpected-response', (_req, res) => resolve(`unexpected ${res.statusCode}`));
    });
    console.log('socket', opened);
    const postId = await kit.post(owner, null);
    await kit.comment(ann, postId);
    await kit.like(ann, postId);
    await new Promise((r) => setTimeout(r, 1500));
    console.log('frames', frames);
    const types = await t.storage.db.selectFrom('outbox').select('type').distinct().execute();
    console.log('outbox types', types.map((x) => x.type));
    console.log('history', (await kit.history(owner)).data.map((r) => r.description));
    socket.close();
  });

  it('removal exactly at the 10-day boundary and an event exactly at the boundary', async () => {
    const owner = await kit.user('owner');
    const ann = await kit.user('ann', 'Ann');
    const bob = await kit.user('bob', 'Bob');
    const postId = await kit.post(owner, null);
    const c1 = await kit.comment(ann, postId);
    const first = (await kit.history(owner)).data[0];
    kit.advance(10 * DAY_MS + 5000);
    await ann.ok('DELETE', `/client/v1/comments/${c1}`);
    await kit.comment(bob, postId);
    console.log('after late removal + new comment', JSON.stringify((await kit.history(owner)).data.map((r) => [r.description, r.targetGroup])), first?.targetGroup);
  });

  it('the comment author removed from a community still deletes; a post by a user who then leaves', async () => {
    const owner = await kit.user('owner', 'Owen');
    const m = await kit.user('m', 'Mem');
    const x = await kit.user('x', 'Xia');
    const c = await kit.community(owner, 'Club', [m, x]);
    const postId = await kit.post(x, c);
    await x.ok('POST', `/client/v1/communities/${c}/leave`);
    // ex-member's post still shows to members; ex-member can delete it
    console.log('m sees', (await kit.history(m)).data.map((r) => r.description));
    const del = await x.call('DELETE', `/client/v1/posts/${postId}`);
    console.log('ex-member deletes own post', del.statusCode);
    console.log('m sees after', (await kit.history(m)).data.map((r) => r.description));
  });
});
