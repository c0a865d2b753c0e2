import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Unknown body fields are ignored, as the original's clients expect, and named in the answer's
 * `Parley-Ignored-Fields` header, so a misspelt field is found at once.
 */
describe.each(testDatabases)('ignored body fields, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a misspelt field is ignored, the write succeeds, and the header names it', async () => {
    const userId = t.uniqueId('ign');
    const response = await admin.call('PUT', '/api/v2/users', { userId, displayName: 'Ignored', emial: 'a@b.example' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['parley-ignored-fields']).toBe('emial');
    // Nothing unknown, no header.
    const exact = await admin.call('PUT', '/api/v2/users', { userId, displayName: 'Known' });
    expect(exact.statusCode).toBe(200);
    expect(exact.headers['parley-ignored-fields']).toBeUndefined();
  });

  it('names nested fields by their path, in forms too, and on a refusal', async () => {
    const nested = await admin.call('POST', '/api/v2/channels', { options: { limt: 5, limit: 5 }, colour: 'red' });
    expect(nested.statusCode).toBe(200);
    expect(nested.headers['parley-ignored-fields']).toBe('options.limt, colour');
    const form = await admin.form('PUT', '/api/v2/users', `userId=${t.uniqueId('ign')}&nickname=x`);
    expect(form.statusCode).toBe(200);
    expect(form.headers['parley-ignored-fields']).toBe('nickname');
    // The 422 for the missing userId says the misspelt one was ignored.
    const refused = await admin.call('PUT', '/api/v2/users', { userid: 'x' });
    expect({ status: refused.statusCode, ignored: refused.headers['parley-ignored-fields'], message: refused.json().message }).toEqual({
      status: 422,
      ignored: 'userid',
      message: 'userId is required.',
    });
    // Free-form objects (metadata) take any key: nothing is ignored there.
    const channelId = t.uniqueId('ign');
    const open = await admin.call('POST', '/api/v2/channel', { channelId, type: 'standard', metadata: { anything: 1 } });
    expect(open.statusCode, open.body).toBe(200);
    expect(open.headers['parley-ignored-fields']).toBeUndefined();
  });

  it('keeps the header short and ASCII whatever the body holds, and exposes it to browsers', async () => {
    const body: Record<string, unknown> = { userId: t.uniqueId('ign') };
    for (let index = 0; index < 30; index++) body[`extra${index}`] = index;
    body['é, ça%'] = 1;
    const many = await admin.call('PUT', '/api/v2/users', body);
    expect(many.statusCode).toBe(200);
    const listed = (many.headers['parley-ignored-fields'] as string).split(', ');
    expect(listed).toHaveLength(21);
    expect(listed.at(-1)).toBe('...');
    const odd = await admin.call('PUT', '/api/v2/users', { userId: t.uniqueId('ign'), 'é, ça%': 1, ['k'.repeat(500)]: 1 });
    expect(odd.headers['parley-ignored-fields']).toBe(`%C3%A9%2C%20%C3%A7a%25, ${'k'.repeat(64)}...`);

    const userId = t.uniqueId('ign');
    await admin.createUser(userId);
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 60_000 });
    const fromBrowser = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${t.uniqueId('none')}/messages`,
      headers: { authorization: `Bearer ${token}`, origin: 'https://app.example' },
      payload: { type: 'text', data: { text: 'hi' }, colour: 'red' },
    });
    expect(fromBrowser.statusCode).toBeGreaterThanOrEqual(400);
    expect(fromBrowser.headers['parley-ignored-fields']).toBe('colour');
    expect(fromBrowser.headers['access-control-expose-headers']).toContain('parley-ignored-fields');
  });
});
