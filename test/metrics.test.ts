import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from './helpers/test-app.js';

describe.each(testDatabases)('metrics on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database);
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts requests by route pattern and status, with latency, outbox lag, sockets and pool', async () => {
    const admin = adminClient(t);
    const channelId = t.uniqueId('metric');
    await admin.createChannel(channelId);
    await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: ['nobody'] });
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    const text = response.body;
    expect(text).toMatch(/parley_http_requests_total\{method="POST",route="\/api\/v2\/channel",status="200"\} 1/);
    expect(text).toMatch(/parley_http_requests_total\{method="POST",route="\/api\/v2\/channel\/:channelId\/users",status="404"\} 1/);
    expect(text).not.toContain(channelId);
    expect(text).toContain('parley_http_request_duration_seconds_bucket');
    expect(text).toMatch(/parley_outbox_lag_events \d+/);
    expect(text).toMatch(/parley_websocket_connections 0/);
    if (database === 'postgres') expect(text).toMatch(/parley_database_pool_connections\{state="total"\} \d+/);
  });
});
