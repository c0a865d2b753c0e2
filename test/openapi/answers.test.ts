import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerCheck } from '../helpers/response-validation.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';
import { documentedRoutes, NON_JSON_SUCCESS, NOT_CALLED, operationKey } from './route-kinds.js';
import {
  adminConsoleRoutes,
  adminMessages,
  adminReactions,
  adminReads,
  channels,
  moderationQueue,
  operatorTools,
  peopleAndRoles,
  rules,
} from './scenario/admin-steps.js';
import { clientMessages, clientModeration, clientReactionsAndFlags, communities } from './scenario/client-steps.js';
import { bot, operations, signIn, tray } from './scenario/other-steps.js';
import { createWorld, type World } from './scenario/world.js';

/**
 * Real answers against the declared schemas: on one app, a scenario makes realistic data through
 * the public API (people, roles, channels, text, image and file messages, reactions, flags, rules,
 * an OAuth client and a bot, a signed-in person, communities feeding the tray) and calls every
 * registered route at least once so that it succeeds. Every answer is checked as it is sent
 * (helpers/response-validation.ts: the handler's object with no undeclared field, the wire equal
 * to it, non-JSON answers under their documented media type). At the end every route must have
 * given at least one successful answer that conforms to its declared schema.
 */
const STEPS: Array<[string, (world: World) => Promise<void>]> = [
  ['operations', operations],
  ['people and roles', peopleAndRoles],
  ['channels', channels],
  ['admin messages', adminMessages],
  ['admin reactions', adminReactions],
  ['client messages', clientMessages],
  ['client reactions and flags', clientReactionsAndFlags],
  ['client moderation', clientModeration],
  ['moderation queue', moderationQueue],
  ['communities', communities],
  ['tray', tray],
  ['bot', bot],
  ['rules', rules],
  ['operator tools', operatorTools],
  ['sign-in', signIn],
  ['admin reads', adminReads],
  ['admin console routes', adminConsoleRoutes],
];

/** A success: the route's documented non-JSON success status (a redirect), or any 2xx. */
function isSuccess(key: string, status: number): boolean {
  const exception = NON_JSON_SUCCESS[key];
  return exception ? status === exception.status : status >= 200 && status < 300;
}

/** Why a route has no conforming success, or null when it has one. */
function shortfall(key: string, checks: readonly AnswerCheck[]): string | null {
  const successes = checks.filter((check) => isSuccess(key, check.status));
  if (successes.some((check) => check.outcome === 'conforms')) return null;
  if (checks.length === 0) return 'never called';
  const first = successes[0];
  if (!first)
    return `never succeeded (answered ${[...new Set(checks.map((check) => check.status))].join(', ')}${checks[0]?.serverError ? `: ${checks[0].serverError}` : ''})`;
  if (first.outcome === 'undeclared') return `answered ${first.status} ${first.mediaType || '(no body)'} but declares no response schema`;
  return `answered ${first.status} against its schema: ${first.problems.join(' | ')}`;
}

describe.each(testDatabases)('every route answers as its schema declares, on %s', (database) => {
  let t: TestApp;
  let world: World;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' }, { validateResponses: true });
    world = await createWorld(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the scenario calls every route and each call succeeds (answers that break their schema fail it too)', async () => {
    for (const [name, run] of STEPS) await world.step(name, () => run(world));
    expect(world.failures.length, `calls that did not succeed:\n${world.failures.join('\n')}\n`).toBe(0);
  }, 300_000);

  it('every registered route gave a successful answer that conforms to its declared response schema', () => {
    const checks = t.responses?.checks ?? [];
    const missing: string[] = [];
    let conforming = 0;
    const routes = documentedRoutes(t.routes).filter((route) => NOT_CALLED[operationKey(route.method, route.url)] === undefined);
    for (const route of routes) {
      const key = operationKey(route.method, route.url);
      const reason = shortfall(
        key,
        checks.filter((check) => check.method === route.method && check.route === route.url),
      );
      if (reason === null) conforming += 1;
      else missing.push(`${key}: ${reason}`);
    }
    const summary = `answers to-do (${database}): ${missing.length} of ${routes.length} routes without a conforming success, ${conforming} conform\n${missing.join('\n')}\n`;
    if (missing.length > 0) process.stdout.write(summary);
    expect(routes.length).toBeGreaterThan(90);
    expect(missing.length, summary).toBe(0);
  });
});
