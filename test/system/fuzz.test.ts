import fc from 'fast-check';
import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { createUsersStore } from '../../src/modules/users/users.store.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Property: whatever arrives at any route, the server answers below 500, and every error is in the
 * envelope. Requests are generated from each route's own schema (valid-looking values) and mutated
 * (wrong types, huge strings, deep nesting, unicode edges, duplicate keys, invalid UTF-8, wrong
 * content types, broken multipart). Bounded by FUZZ_SECONDS (default 20) in `npm test`;
 * `npm run fuzz` runs longer.
 */
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 20);

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

const edgeStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '../../etc/passwd',
  '%00',
  '😀'.repeat(50),
  'a'.repeat(20_001),
  '<script>',
  "' or 1=1 --",
  '__proto__',
  'constructor',
  '\u202Eevil',
  'null',
  '1e309',
  '-0',
);

/**
 * Where an error is answered as designed. The API surfaces use the envelope of docs/contract.md,
 * Errors. The sign-in pages a browser opens (login, logout, authorize, password reset) answer an HTML page, since
 * a person reads them; the OAuth protocol endpoints answer RFC 6749 section 5.2 / RFC 6750 errors
 * (`{"error": ...}`), since OpenID client libraries parse those.
 */
const BROWSER_PAGES = new Set(['/login', '/logout', '/oauth/authorize', '/reset-password']);
const OAUTH_PROTOCOL = new Set(['/oauth/token', '/userinfo', '/oauth/jwks']);

function errorAsDesigned(url: string, response: { headers: Record<string, unknown>; json: () => unknown }): boolean {
  const contentType = String(response.headers['content-type'] ?? '');
  if (BROWSER_PAGES.has(url)) return contentType.startsWith('text/html');
  if (OAUTH_PROTOCOL.has(url) && typeof response.headers['www-authenticate'] === 'string') return true;
  let body: { status?: unknown; code?: unknown; message?: unknown; error?: unknown } = {};
  try {
    body = response.json() as typeof body;
  } catch {
    return false;
  }
  if (OAUTH_PROTOCOL.has(url) && typeof body.error === 'string') return true;
  return body.status === 'error' && typeof body.code === 'number' && typeof body.message === 'string';
}

function valueFor(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), fc.string());
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => valueFor(option, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof(
        { weight: 4, arbitrary: fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) }) },
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        edgeStrings,
      );
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 1_000_000) }),
        fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1.5),
      );
    case 'number':
      return fc.oneof(fc.double({ noNaN: true }), fc.integer());
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 'yes'));
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 5, 5) });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      return fc.record(Object.fromEntries(properties.map(([key, value]) => [key, valueFor(value, depth + 1)])), { requiredKeys: [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values that break the schema's expectations on purpose. */
const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) as unknown),
  fc.constant({ big: 'x'.repeat(200_000) }),
  fc.constant([[[[[[[[[[[]]]]]]]]]]]),
);

type Body = { contentType?: string; payload?: string | Buffer };

function bodiesFor(schema: JsonSchema | undefined): fc.Arbitrary<Body> {
  const value = fc.oneof({ weight: 3, arbitrary: valueFor(schema) }, hostile);
  return fc.oneof(
    { weight: 4, arbitrary: value.map((v) => ({ contentType: 'application/json', payload: JSON.stringify(v) ?? 'null' })) },
    {
      weight: 2,
      arbitrary: value.map((v) => ({
        contentType: 'application/x-www-form-urlencoded',
        payload: qs.stringify(typeof v === 'object' && v !== null ? v : { v }),
      })),
    },
    fc.constant<Body>({ contentType: 'application/json', payload: '{"channelId":"a","channelId":{"x":1},"type":"standard","type":"custom"}' }),
    fc.constant<Body>({ contentType: 'application/json', payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]) }),
    fc.constant<Body>({ contentType: 'application/json', payload: '{"a": 1' }),
    fc.constant<Body>({ contentType: 'text/plain', payload: 'hello' }),
    fc.constant<Body>({ contentType: 'application/xml', payload: '<a/>' }),
    fc.constant<Body>({
      contentType: 'multipart/form-data; boundary=zz',
      payload: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nnot really',
    }),
    fc.constant<Body>({ contentType: 'multipart/form-data', payload: 'no boundary at all' }),
    fc.constant<Body>({}),
  );
}

function pathFor(route: RegisteredRoute): fc.Arbitrary<string> {
  const names = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const segment = fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9-]{1,12}$/) }, fc.string({ maxLength: 60 }), edgeStrings);
  return fc.tuple(...names.map(() => segment)).map((values) => {
    let url = route.url;
    names.forEach((name, index) => {
      let encoded: string;
      try {
        encoded = encodeURIComponent(values[index] ?? 'x') || 'x';
      } catch {
        encoded = '%ED%A0%80'; // a lone surrogate: invalid UTF-8 once decoded, which is the point
      }
      url = url.replace(`:${name}`, encoded);
    });
    return url;
  });
}

describe('fuzzing every route', () => {
  let t: TestApp;
  const tokenFor: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
    const admin = adminClient(t);
    const issuer = createTokensService({ db: t.storage.db, clock: t.clock });
    await admin.createUser('fuzz-user');
    await createUsersStore(t.storage.db).insertIfMissing({ id: 'fuzz-bot', kind: 'bot', displayName: 'Fuzz bot', now: Date.now() });
    tokenFor['/api/v2/'] = t.adminToken;
    tokenFor['/client/v1/'] = (await issuer.issue({ kind: 'user', userId: 'fuzz-user', expiresInMs: 36_000_000 })).token;
    tokenFor['/notifications/'] = tokenFor['/client/v1/'] as string;
    tokenFor['/bot/v1/'] = (await issuer.issue({ kind: 'bot', userId: 'fuzz-bot', expiresInMs: 36_000_000 })).token;
    await admin.createChannel('fuzz-channel', { userIds: ['fuzz-user', 'fuzz-bot'] });
  });
  afterAll(async () => {
    await t.close();
  });

  it(
    `answers generated and mutated requests below 500, in the envelope (${SECONDS} s)`,
    async () => {
      const routes = t.routes.filter((route) => !route.websocket && route.method !== 'HEAD' && !route.url.startsWith('/docs'));
      let sent = 0;
      const serverErrors: string[] = [];
      const badEnvelopes: string[] = [];
      const request = fc.constantFrom(...routes).chain((route) =>
        fc.record({
          route: fc.constant(route),
          path: pathFor(route),
          query: valueFor(route.schema.querystring as JsonSchema | undefined),
          body: bodiesFor(route.schema.body as JsonSchema | undefined),
          auth: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, fc.constant(false)),
        }),
      );
      await fc.assert(
        fc.asyncProperty(request, async ({ route, path, query, body, auth }) => {
          const prefix = Object.keys(tokenFor).find((candidate) => route.url.startsWith(candidate));
          const headers: Record<string, string> = {};
          if (auth && prefix) headers.authorization = `Bearer ${tokenFor[prefix]}`;
          if (body.contentType) headers['content-type'] = body.contentType;
          const search = typeof query === 'object' && query !== null ? qs.stringify(query) : '';
          const response = await t.app.inject({
            method: route.method as 'GET',
            url: search ? `${path}?${search}` : path,
            headers,
            ...(body.payload !== undefined && route.method !== 'GET' ? { payload: body.payload } : {}),
          });
          sent += 1;
          const label = `${route.method} ${path} ${String(body.contentType)} ${String(body.payload).slice(0, 80)} -> ${response.statusCode} ${response.body.slice(0, 160)}`;
          if (response.statusCode >= 500) serverErrors.push(label);
          else if (response.statusCode >= 400 && !errorAsDesigned(route.url, response)) badEnvelopes.push(label);
          return true;
        }),
        { numRuns: 1_000_000, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false },
      );
      process.stdout.write(
        `fuzz: ${sent} requests over ${routes.length} routes, ${serverErrors.length} answered 5xx, ${badEnvelopes.length} errors outside the envelope\n`,
      );
      expect(sent).toBeGreaterThan(100);
      expect(badEnvelopes.slice(0, 10)).toEqual([]);
      expect(serverErrors.slice(0, 10)).toEqual([]);
    },
    (SECONDS + 60) * 1000,
  );
});
