import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * A path a route serves, asked with another method, is 405 with `Allow` and the envelope (code 400400,
 * what an unknown route answers); a path no route serves stays 404.
 */
describe.each(testDatabases)('methods a path does not serve, on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database);
  });
  afterAll(async () => {
    await t.close();
  });

  it('GET on a POST-only route is 405 with Allow and the envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v2/channel', headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({
      status: 'error',
      code: 400400,
      message: 'GET is not served on /api/v2/channel; it answers POST.',
      data: { detail: [], fields: [] },
    });
  });

  it('a path with parameters lists every method it serves, HEAD with GET', async () => {
    const response = await t.app.inject({ method: 'PATCH', url: '/api/v2/channel/some-channel/users?x=1' });
    expect({ status: response.statusCode, allow: response.headers.allow }).toEqual({ status: 405, allow: 'GET, HEAD, POST, DELETE' });
    expect(response.json().message).toBe('PATCH is not served on /api/v2/channel/some-channel/users; it answers GET, HEAD, POST, DELETE.');
    const me = await t.app.inject({ method: 'DELETE', url: '/client/v1/me' });
    expect(me.statusCode).toBe(405);
    expect((me.headers.allow as string).split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD']));
  });

  it('an unknown path stays 404 / 400400 without Allow', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: '/api/v2/no-such-thing' });
      expect({ status: response.statusCode, allow: response.headers.allow, code: response.json().code }).toEqual({
        status: 404,
        allow: undefined,
        code: 400400,
      });
      expect(response.json().message).toBe(`Route ${method} /api/v2/no-such-thing not found.`);
    }
  });
});
