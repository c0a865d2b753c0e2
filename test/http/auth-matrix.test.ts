import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { createUsersStore } from '../../src/modules/users/users.store.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Every registered route times every kind of caller, generated from the app's own route table, so a
 * route added later is covered without anyone listing it. Auth is decided before the body is read,
 * so the requests carry no body: what matters is whether the caller got past authentication.
 */
type Caller = 'none' | 'garbage' | 'expired' | 'user' | 'bot' | 'admin' | 'banned';
const CALLERS: Caller[] = ['none', 'garbage', 'expired', 'user', 'bot', 'admin', 'banned'];

/** Who may pass each surface; everything under a prefix follows its surface's rule. */
const SURFACES: { prefix: string; allowed: Caller }[] = [
  { prefix: '/api/v2/', allowed: 'admin' },
  { prefix: '/client/v1/', allowed: 'user' },
  { prefix: '/notifications/', allowed: 'user' },
  { prefix: '/bot/v1/', allowed: 'bot' },
];

/** Routes with their own rules, each tested in its module's tests. */
const OWN_RULES = [/^\/client\/v1\/stream$/, /^\/file\/view\//];

/** The codes that mean "stopped at the door". */
const AUTH_CODES = new Set([400100, 400300, 400312]);

function expectedFor(allowed: Caller, caller: Caller): { status: number; code: number } | 'passes' {
  if (caller === 'none' || caller === 'garbage' || caller === 'expired') return { status: 401, code: 400100 };
  if (caller === 'banned') return allowed === 'user' ? { status: 403, code: 400312 } : { status: 403, code: 400300 };
  return caller === allowed ? 'passes' : { status: 403, code: 400300 };
}

describe('authorization matrix over every route', () => {
  let t: TestApp;
  const tokens: Partial<Record<Caller, string>> = {};

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
    const admin = adminClient(t);
    const issuer = createTokensService({ db: t.storage.db, clock: t.clock });
    await admin.createUser('matrix-user');
    await admin.createUser('matrix-banned');
    await createUsersStore(t.storage.db).insertIfMissing({ id: 'matrix-bot', kind: 'bot', displayName: 'Matrix bot', now: Date.now() });
    tokens.garbage = 'x'.repeat(43);
    tokens.user = (await issuer.issue({ kind: 'user', userId: 'matrix-user', expiresInMs: 3_600_000 })).token;
    tokens.bot = (await issuer.issue({ kind: 'bot', userId: 'matrix-bot', expiresInMs: 3_600_000 })).token;
    tokens.banned = (await issuer.issue({ kind: 'user', userId: 'matrix-banned', expiresInMs: 3_600_000 })).token;
    tokens.admin = t.adminToken;
    const expired = await issuer.issue({ kind: 'user', userId: 'matrix-user', expiresInMs: 1 });
    tokens.expired = expired.token;
    await admin.call('POST', '/api/v2/users/ban', { userId: 'matrix-banned' });
    await new Promise((resolve) => setTimeout(resolve, 5));
  });
  afterAll(async () => {
    await t.close();
  });

  it('covers the surfaces it knows, and every route of them answers each caller as designed', async () => {
    const guarded = t.routes.filter(
      (route) =>
        !route.websocket &&
        route.method !== 'HEAD' &&
        SURFACES.some((surface) => route.url.startsWith(surface.prefix)) &&
        !OWN_RULES.some((rule) => rule.test(route.url)),
    );
    expect(guarded.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const route of guarded) {
      const surface = SURFACES.find((candidate) => route.url.startsWith(candidate.prefix));
      if (!surface) continue;
      const url = route.url.replace(/:(\w+)/g, 'matrix-$1').replace('*', 'x');
      for (const caller of CALLERS) {
        const token = tokens[caller];
        const response = await t.app.inject({
          method: route.method as 'GET',
          url,
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
        const expected = expectedFor(surface.allowed, caller);
        const label = `${route.method} ${route.url} as ${caller}: ${response.statusCode} ${response.body.slice(0, 120)}`;
        if (response.statusCode >= 500) failures.push(label);
        else if (expected === 'passes') {
          if (AUTH_CODES.has(response.json().code)) failures.push(label);
        } else if (response.statusCode !== expected.status || response.json().code !== expected.code) {
          failures.push(`${label} (expected ${expected.status}/${expected.code})`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('has no route outside the known surfaces that is not deliberately public', () => {
    const publicRoutes = [
      /^\/$/,
      /^\/console(\/|$)/,
      /^\/favicon\.ico$/,
      /^\/healthz$/,
      /^\/readyz$/,
      /^\/metrics$/,
      /^\/openapi\.json$/,
      /^\/docs/,
      /^\/oauth\//,
      /^\/\.well-known\//,
      /^\/userinfo$/,
      /^\/login$/,
      /^\/logout$/,
      // A password-reset link: the one-time token in the link is the credential.
      /^\/reset-password$/,
      /^\/file\/view\//,
      /^\/client\/v1\/stream$/,
      /^\/.+\/\.well-known\/openid-configuration$/,
    ];
    const unexplained = t.routes
      .filter((route) => !SURFACES.some((surface) => route.url.startsWith(surface.prefix)))
      .filter((route) => !publicRoutes.some((pattern) => pattern.test(route.url)))
      .map((route) => `${route.method} ${route.url}`);
    expect(unexplained).toEqual([]);
  });
});
