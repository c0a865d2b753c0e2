import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * A lone surrogate in JSON held by a form field (which docs/contract.md, Requests, accepts:
 * `tags=["a"]`, `data={"text":...}`) or a multipart field is refused like in a JSON body, rather
 * than accepted and stored as U+FFFD.
 */
describe.each(testDatabases)('lone surrogates in JSON held by a form field on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('data={"text":"a\\udc00b"} in a form is refused like the same JSON body', async () => {
    const gid = t.uniqueId('g');
    await admin.createChannel(gid);
    const json = await admin.call('POST', '/api/v2/message', `{"channelId":"${gid}","type":"text","data":{"text":"a\\udc00b"}}`, {
      'content-type': 'application/json',
    });
    expect(json.statusCode).toBe(422);
    const form = await admin.form('POST', '/api/v2/message', `channelId=${gid}&type=text&data=${encodeURIComponent('{"text":"a\\udc00b"}')}`);
    expect([form.statusCode, form.body.slice(0, 200)]).toEqual([422, expect.anything()]);
  });

  it('tags=["x\\ud800"] in a form or a multipart field is refused, not stored as U+FFFD', async () => {
    const gid = t.uniqueId('g');
    await admin.createChannel(gid);
    const form = await admin.form('POST', '/api/v2/message', `channelId=${gid}&type=text&data[text]=hello&tags=${encodeURIComponent('["x\\ud800"]')}`);
    expect(form.statusCode).toBe(422);
    expect(form.json().data.fields).toEqual([expect.objectContaining({ field: 'body.tags[0]' })]);
    const { payload, contentType } = multipartBody(
      [
        ['channelId', gid],
        ['tags', '["x\\ud800"]'],
      ],
      [{ name: 'file', fileName: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') }],
    );
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/files',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
      payload,
    });
    expect(multipart.statusCode).toBe(422);
    expect(multipart.json().data.fields).toEqual([expect.objectContaining({ field: 'body.tags[0]' })]);
    const rows = await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', gid).execute();
    expect(rows).toEqual([]);
  });
});
