import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

/**
 * /readyz names each dependency and its state: the database always, Redis when REDIS_URL is set.
 * (Redis lost and back: test/system/redis-loss.test.ts.)
 */
describe.each(testDatabases)('readiness on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 200 with the database check, and no Redis check without REDIS_URL', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
  });

  it.skipIf(!REDIS_URL)('adds the Redis check with REDIS_URL (skipped without TEST_REDIS_URL)', async () => {
    const withRedis = await startTestApp(database, { REDIS_URL: REDIS_URL as string });
    try {
      const response = await withRedis.app.inject({ method: 'GET', url: '/readyz' });
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
    } finally {
      await withRedis.close();
    }
  });
});
