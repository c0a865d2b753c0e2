import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

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
    // Latency as a Prometheus histogram: cumulative buckets ending at +Inf, which equals the count.
    expect(text).toContain('# TYPE parley_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE parley_http_requests_total counter');
    const series = '{method="POST",route="/api/v2/channel/:channelId/users"';
    const bucketLines = text.split('\n').filter((line) => line.startsWith(`parley_http_request_duration_seconds_bucket${series}`));
    const counts = bucketLines.map((line) => Number(line.split(' ').at(-1)));
    expect(bucketLines.at(-1)).toContain('le="+Inf"');
    expect(counts.length).toBe(12);
    expect(counts.every((count, index) => index === 0 || count >= (counts[index - 1] as number))).toBe(true);
    expect(counts.at(-1)).toBe(1);
    expect(text).toContain(`parley_http_request_duration_seconds_count${series}} 1`);
    const sum = Number(/parley_http_request_duration_seconds_sum\{method="POST",route="\/api\/v2\/channel\/:channelId\/users"\} (\S+)/.exec(text)?.[1]);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(5);
    expect(text).toMatch(/parley_outbox_lag_events \d+/);
    expect(text).toMatch(/parley_websocket_connections 0/);
    if (database === 'postgres') expect(text).toMatch(/parley_database_pool_connections\{state="total"\} \d+/);
  });

  it('names the process metrics parley_process_* and parley_nodejs_*, with the prefix once', async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('# TYPE parley_process_cpu_seconds_total counter');
    expect(text).toMatch(/^parley_process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^parley_nodejs_eventloop_lag_seconds /m);
    expect(text).not.toContain('process_process_');
  });
});
