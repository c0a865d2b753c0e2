import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { problemsAgainst, schemaAt } from '../helpers/published-shapes.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * The error envelope as the original types it: its 2023 global/error.yaml Error allows `data.detail`
 * to be a list of strings or an object, and its typed clients (Swift `[String]`) decode a list of
 * strings only. Parley's `data.detail` is that list, one readable sentence per problem naming its
 * field, and the same problems stay machine-readable in `data.fields` ([{field, message}]), a key
 * those clients ignore. The 2021 Error types `code` as a string while every example beside it and
 * every SDK use a number; SOURCES.md says to follow 2023.
 */
const ORIGINAL_ERROR = schemaAt('6e3323f/global/error.yaml#/Error').schema;

describe.each(testDatabases)('the error envelope against the original 2023 Error schema, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a validation error lists readable sentences in detail and the fields in fields', async () => {
    const response = await admin.call('PUT', '/api/v2/users', { displayName: 'No id' });
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expect(problemsAgainst(ORIGINAL_ERROR, body)).toEqual([]);
    expect(body).toMatchObject({ status: 'error', code: 500000 });
    expect(body.data.fields).toEqual([{ field: 'body.userId', message: 'is required' }]);
    expect(body.data.detail).toEqual(['body.userId: is required']);
  });

  it('a problem found in the query string, or several at once, is named the same way in both keys', async () => {
    const response = await admin.form('POST', '/api/v2/channel', 'type=private&tags=1&displayName[a]=b');
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    const body = response.json();
    expect(problemsAgainst(ORIGINAL_ERROR, body)).toEqual([]);
    expect(body.data.fields.length).toBeGreaterThan(1);
    expect(body.data.detail).toEqual(body.data.fields.map((problem: { field: string; message: string }) => `${problem.field}: ${problem.message}`));

    const query = await admin.call('GET', '/api/v2/users?limit=0');
    expect(query.statusCode).toBe(422);
    expect(problemsAgainst(ORIGINAL_ERROR, query.json())).toEqual([]);
    expect(query.json().data.fields[0].field).toBe('querystring.limit');
    expect(query.json().data.detail[0]).toMatch(/^querystring\.limit: /);
  });

  it('a problem a service finds (an unknown member) is carried the same way', async () => {
    const response = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('envelope'), type: 'standard', userIds: ['nobody-here'] });
    expect(response.statusCode).toBe(404);
    const body = response.json();
    expect(problemsAgainst(ORIGINAL_ERROR, body)).toEqual([]);
    expect(body.data.fields).toEqual([expect.objectContaining({ field: 'userIds', message: expect.stringContaining('nobody-here') })]);
    expect(body.data.detail).toEqual([expect.stringMatching(/^userIds: .*nobody-here/)]);
  });

  it('an error without field problems has empty lists, and matches too', async () => {
    const response = await admin.call('POST', '/api/v2/channel/no-such-channel/displayName', { displayName: 'x' });
    expect(response.statusCode).toBe(404);
    expect(problemsAgainst(ORIGINAL_ERROR, response.json())).toEqual([]);
    expect(response.json().data).toEqual({ detail: [], fields: [] });
  });

  it('holds the original schema to what it says: a list of objects in detail does not match', () => {
    const objects = { status: 'error', code: 500000, message: 'Parameters error.', data: { detail: [{ field: 'body.userId', message: 'is required' }] } };
    expect(problemsAgainst(ORIGINAL_ERROR, objects)).not.toEqual([]);
  });
});
