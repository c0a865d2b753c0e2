import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

interface RuleRecord {
  ruleId: string;
  regex: string;
  isMatchExactWord?: boolean;
  isEnabled: boolean;
}

type Kind = 'blacklist' | 'whitelist';

/**
 * The blacklist and whitelist routes as the original's clients call them (docs/compatibility.md):
 * the 2023 files send the ids of DELETE in the query string (`ruleIds=a&ruleIds=b`); the update body
 * of both versions is `{ruleId, isEnabled}` with the rule's own id in `ruleId`, and it answers
 * `{status, data: rule}` (BlacklistRuleResponse).
 */
describe.each(testDatabases)('admin rule routes as the original answered them, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let channelId: string;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
    channelId = t.uniqueId('rules-compat');
    await admin.createChannel(channelId);
  });
  afterAll(async () => {
    await t.close();
  });
  // Rules are server-wide: every test starts with none.
  afterEach(async () => {
    for (const kind of ['blacklist', 'whitelist'] as const) {
      const ruleIds = (await list(kind)).map((rule) => rule.ruleId);
      if (ruleIds.length > 0) expect((await admin.call('DELETE', `/api/v2/${kind}/records`, { ruleIds })).statusCode).toBe(200);
    }
  });

  async function list(kind: Kind): Promise<RuleRecord[]> {
    return (await admin.call('GET', `/api/v2/${kind}/records`)).json().data.results;
  }
  async function add(kind: Kind, regexs: string[], extra: Record<string, unknown> = {}): Promise<RuleRecord[]> {
    const response = await admin.call('POST', `/api/v2/${kind}/records`, { regexs, ...extra });
    expect(response.statusCode).toBe(200);
    return response.json().data.results;
  }
  const idsOf = (rules: RuleRecord[]): string[] => rules.map((rule) => rule.ruleId);
  const send = (text: string) => admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });

  describe('DELETE with the ids in the query string', () => {
    it.each(['blacklist', 'whitelist'] as const)('deletes the %s rules named by ruleIds=a&ruleIds=b, ruleIds[]=a and a single ruleIds=a', async (kind) => {
      const words = kind === 'blacklist' ? ['one', 'two', 'three', 'four'] : ['one.example', 'two.example', 'three.example', 'four.example'];
      const [one, two, three, four] = idsOf(await add(kind, words)) as [string, string, string, string];

      const repeated = await admin.call('DELETE', `/api/v2/${kind}/records?ruleIds=${one}&ruleIds=${two}`);
      expect(repeated.statusCode).toBe(200);
      expect(repeated.json()).toMatchObject({ status: 'success', data: { results: [{ ruleId: one }, { ruleId: two }] } });
      const bracketed = await admin.call('DELETE', `/api/v2/${kind}/records?ruleIds[]=${three}`);
      expect(bracketed.json()).toMatchObject({ status: 'success', data: { results: [{ ruleId: three }] } });
      // The original's clients send a Content-Type header (its files require one) and no body.
      const single = await admin.call('DELETE', `/api/v2/${kind}/records?ruleIds=${four}`, undefined, { 'content-type': 'application/json' });
      expect(single.statusCode).toBe(200);
      expect(single.json().data.results.map((rule: RuleRecord) => rule.ruleId)).toEqual([four]);
      expect(await list(kind)).toEqual([]);
    });

    it('deletes all or none from the query too, and refuses ids in both parts or in neither', async () => {
      const [one, two] = idsOf(await add('blacklist', ['alpha', 'beta'])) as [string, string];
      const unknown = await admin.call('DELETE', `/api/v2/blacklist/records?ruleIds=${one}&ruleIds=nope`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 400400, message: 'Rule not found: nope.' });

      const both = await admin.call('DELETE', `/api/v2/blacklist/records?ruleIds=${one}`, { ruleIds: [two] });
      expect(both.statusCode).toBe(422);
      const neither = await admin.call('DELETE', '/api/v2/blacklist/records', undefined, { 'content-type': 'application/json' });
      expect(neither.statusCode).toBe(422);
      expect(neither.json().data.fields).toEqual([{ field: 'body.ruleIds', message: 'is required' }]);
      const badId = await admin.call('DELETE', '/api/v2/blacklist/records?ruleIds=a%2Fb');
      expect(badId.statusCode).toBe(422);
      expect(idsOf(await list('blacklist'))).toEqual([one, two]);

      // The contract's body form (docs/contract.md, Admin API) is unchanged.
      const form = await admin.form('DELETE', '/api/v2/blacklist/records', `ruleIds=${one}&ruleIds=${two}`);
      expect(form.json().data.results.map((rule: RuleRecord) => rule.ruleId)).toEqual([one, two]);
    });
  });

  describe('PUT /{kind}/records/{ruleId}', () => {
    it('answers {status, data: rule}, the rule itself', async () => {
      const [rule] = await add('blacklist', ['gadget'], { isMatchExactWord: true });
      const response = await admin.call('PUT', `/api/v2/blacklist/records/${rule?.ruleId}`, { isEnabled: false });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        status: 'success',
        data: { ruleId: rule?.ruleId, regex: 'gadget', isMatchExactWord: true, isEnabled: false, createdAt: expect.any(String), updatedAt: expect.any(String) },
      });
      expect(await list('blacklist')).toEqual([body.data]);

      const [link] = await add('whitelist', ['example.com']);
      const renamed = await admin.form('PUT', `/api/v2/whitelist/records/${link?.ruleId}`, 'ruleId=example.net');
      expect(renamed.json()).toEqual({
        status: 'success',
        data: { ruleId: link?.ruleId, regex: 'example.net', isEnabled: true, createdAt: expect.any(String), updatedAt: expect.any(String) },
      });
    });

    it("keeps the blocked word when the original's update body {ruleId, isEnabled} names the rule's own id", async () => {
      const [rule] = await add('blacklist', ['verboten'], { isMatchExactWord: true });
      const ruleId = rule?.ruleId as string;
      const disabled = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId, isEnabled: false });
      expect(disabled.statusCode).toBe(200);
      expect(await list('blacklist')).toMatchObject([{ ruleId, regex: 'verboten', isMatchExactWord: true, isEnabled: false }]);
      expect((await send('verboten words')).statusCode).toBe(200);

      const enabled = await admin.form('PUT', `/api/v2/blacklist/records/${ruleId}`, `ruleId=${ruleId}&isEnabled=true`);
      expect(enabled.statusCode).toBe(200);
      expect(await list('blacklist')).toMatchObject([{ ruleId, regex: 'verboten', isMatchExactWord: true, isEnabled: true }]);
      const refused = await send('verboten words');
      expect({ status: refused.statusCode, code: refused.json().code }).toEqual({ status: 403, code: 400308 });
      // The rule's id is not a word the rule blocks.
      expect((await send(`the id ${ruleId}`)).statusCode).toBe(200);
    });

    it("keeps the allowed URL when the whitelist's update body names the rule's own id", async () => {
      const [rule] = await add('whitelist', ['example.com']);
      const ruleId = rule?.ruleId as string;
      const response = await admin.call('PUT', `/api/v2/whitelist/records/${ruleId}`, { ruleId, isEnabled: true });
      expect(response.statusCode).toBe(200);
      expect(await list('whitelist')).toMatchObject([{ ruleId, regex: 'example.com', isEnabled: true }]);
      expect((await send('see https://example.com/docs')).statusCode).toBe(200);
      expect((await send('see https://evil.example.net')).json().code).toBe(400309);
    });

    it('takes the new word from regex as well, and refuses two different words', async () => {
      const [rule] = await add('blacklist', ['first'], { isMatchExactWord: true });
      const ruleId = rule?.ruleId as string;
      const renamed = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId, regex: 'second' });
      expect(renamed.json().data).toMatchObject({ ruleId, regex: 'second', isMatchExactWord: false, isEnabled: true });
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { regex: 'third', ruleId: 'third' })).json().data.regex).toBe('third');

      const conflicting = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId: 'fourth', regex: 'fifth' });
      expect(conflicting.statusCode).toBe(422);
      expect(conflicting.json().data.fields[0].field).toBe('body.ruleId');
      const blank = await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { regex: '   ' });
      expect(blank.statusCode).toBe(422);
      expect(blank.json().data.fields[0].field).toBe('body.regex');
      expect((await admin.call('PUT', `/api/v2/blacklist/records/${ruleId}`, { ruleId })).statusCode).toBe(422);
      expect((await list('blacklist')).map((item) => item.regex)).toEqual(['third']);
    });
  });
});
