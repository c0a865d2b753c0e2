import { expect } from 'vitest';
import type { BuiltApp } from '../../src/app.js';
import { adminClient } from './admin.js';
import { multipartBody } from './media.js';
import type { TestApp } from './test-app.js';

type App = BuiltApp['app'];

/** A bot made through the admin API, its token from the client_credentials grant, and callers of the bot API. */
export async function createBot(t: TestApp, name: string) {
  const created = await adminClient(t).call('POST', '/api/v2/bots', { displayName: name });
  expect(created.statusCode, created.body).toBe(200);
  const { userId, clientId, clientSecret } = created.json() as { userId: string; clientId: string; clientSecret: string };
  const granted = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&scope=bot',
  });
  expect(granted.statusCode, granted.body).toBe(200);
  const token = granted.json().access_token as string;
  const raw = (app: App, path: string, payload: string | Buffer, contentType: string) =>
    app.inject({ method: 'POST', url: `/bot/v1${path}`, headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload });
  const json = (app: App, path: string, payload: unknown) => raw(app, path, JSON.stringify(payload), 'application/json');
  const multipart = (
    app: App,
    path: string,
    fields: Array<[string, string]>,
    file?: { data: Buffer; fileName: string; contentType: string; name?: string },
  ) => {
    const body = multipartBody(fields, file ? [{ name: 'file', ...file }] : []);
    return raw(app, path, body.payload, body.contentType);
  };
  return { userId, token, clientId, raw, json, multipart };
}
