import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** What a WebSocket upgrade with this query gets: the HTTP refusal (status and content type), or open. */
function tryUpgrade(url: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      resolve(`HTTP ${response.statusCode} ${String(response.headers['content-type'])}`);
    });
    socket.on('open', () => {
      resolve('open');
      socket.close();
    });
    socket.on('error', (error) => resolve(`error ${error.message}`));
  });
}

/** The stream's query is read and checked before the upgrade: a malformed one gets an HTTP answer, never a 500. */
describe('real-time stream: its query and a plain GET (sqlite)', () => {
  let t: TestApp;
  let http: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    http = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a repeated, bracketed or non-numeric token or since with 422 before the upgrade, and a plain GET with 400', async () => {
    const admin = adminClient(t);
    const userId = t.uniqueId('w');
    await admin.createUser(userId, { displayName: 'w' });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const ws = http.replace('http', 'ws');
    for (const query of [
      `token[]=${token}`,
      `token=${token}&token=${token}`,
      'token[a]=x',
      `since=1e400&token=${token}`,
      `since[]=1&token=${token}`,
      `since=x&token=${token}`,
    ]) {
      expect([query, await tryUpgrade(`${ws}/client/v1/stream?${query}`)]).toEqual([query, 'HTTP 422 application/json; charset=utf-8']);
      const plain = await fetch(`${http}/client/v1/stream?${query}`);
      expect([query, plain.status, (await plain.json()).code]).toEqual([query, 422, 500000]);
    }
    expect(await tryUpgrade(`${ws}/client/v1/stream?token=${token}&since=0`)).toBe('open');
    const plain = await fetch(`${http}/client/v1/stream?token=${token}`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ status: 'error', code: 400000, message: expect.stringContaining('WebSocket') });
  });
});
