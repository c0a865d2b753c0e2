import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * DELETE /api/v2/reactions as the original's 2023 files send it (docs/compatibility.md; the
 * original's 6e3323f/swagger.yaml): referenceId, referenceType and reactionName in the query string, no body.
 * The contract's body form (docs/contract.md, Admin API) keeps working beside it.
 */
describe.each(testDatabases)('admin reaction routes as the original answered them, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let channelId: string;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
    channelId = t.uniqueId('reactions-compat');
    await admin.createChannel(channelId);
  });
  afterAll(async () => {
    await t.close();
  });

  async function reactedMessage(...reactionNames: string[]): Promise<{ messageId: string; reactionIds: string[] }> {
    const created = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'react to me' } });
    const messageId = created.json().data.messages[0].messageId as string;
    const reactionIds: string[] = [];
    for (const reactionName of reactionNames) {
      const added = await admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName });
      expect(added.statusCode).toBe(200);
      reactionIds.push(added.json().addedId);
    }
    return { messageId, reactionIds };
  }
  async function countsOf(messageId: string) {
    const { reactions, reactionsCount } = (await admin.call('GET', `/api/v2/message/${messageId}`)).json().message;
    return { reactions, reactionsCount };
  }

  it('removes the reaction named in the query string, with or without a Content-Type header', async () => {
    const { messageId, reactionIds } = await reactedMessage('like', 'heart');
    const removed = await admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=message&reactionName=like`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ removedId: reactionIds[0] });
    // The 2023 files also carry referenceVersion; it names nothing here and is ignored.
    const labelled = await admin.call(
      'DELETE',
      `/api/v2/reactions?referenceId=${messageId}&referenceType=message&reactionName=heart&referenceVersion=5`,
      undefined,
      {
        'content-type': 'application/json',
      },
    );
    expect(labelled.json()).toEqual({ removedId: reactionIds[1] });
    expect(await countsOf(messageId)).toEqual({ reactions: {}, reactionsCount: 0 });

    const again = await admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=message&reactionName=like`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ code: 400400, message: 'Reaction not found.' });
  });

  it('checks the query as it checks the body: every field required, referenceType message only, not both parts', async () => {
    const { messageId } = await reactedMessage('like');
    const missing = await admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=message`);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().data.fields).toEqual([{ field: 'query.reactionName', message: 'is required' }]);
    const otherType = await admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=post&reactionName=like`);
    expect(otherType.statusCode).toBe(422);
    expect(otherType.json().data.fields[0].field).toBe('query.referenceType');
    const both = await admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=message&reactionName=like`, {
      referenceId: messageId,
      referenceType: 'message',
      reactionName: 'like',
    });
    expect(both.statusCode).toBe(422);
    const neither = await admin.call('DELETE', '/api/v2/reactions');
    expect(neither.statusCode).toBe(422);
    expect(neither.json().data.fields.map((item: { field: string }) => item.field)).toEqual(['body.referenceId', 'body.referenceType', 'body.reactionName']);
    expect(await countsOf(messageId)).toEqual({ reactions: { like: 1 }, reactionsCount: 1 });

    // The contract's body form (docs/contract.md, Admin API), as JSON and as a form.
    const json = await admin.call('DELETE', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName: 'like' });
    expect(json.statusCode).toBe(200);
    await admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName: 'like' });
    const form = await admin.form('DELETE', '/api/v2/reactions', `referenceId=${messageId}&referenceType=message&reactionName=like`);
    expect(form.statusCode).toBe(200);
    expect(await countsOf(messageId)).toEqual({ reactions: {}, reactionsCount: 0 });
  });
});
