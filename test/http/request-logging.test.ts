import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A test app logging at `level` into memory, and its records so far. */
async function loggedApp(level: string): Promise<{ t: TestApp; records: () => LogRecord[]; text: () => string }> {
  const lines: string[] = [];
  const t = await startTestApp('sqlite', { LOG_LEVEL: level }, { logStream: { write: (line) => void lines.push(line) } });
  const text = () => lines.join('');
  const records = () =>
    text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as LogRecord);
  return { t, records, text };
}

const completed = (records: LogRecord[]) => records.filter((record) => record.msg === 'request completed');

/**
 * One "request completed" line per request: the method, the route pattern (never the raw URL), the
 * status and, for an error, the envelope's code. Health probes and metrics only at debug; tokens in a
 * URL's query never in any line.
 */
describe('the request log', () => {
  let info: Awaited<ReturnType<typeof loggedApp>>;
  let trace: Awaited<ReturnType<typeof loggedApp>>;

  beforeAll(async () => {
    info = await loggedApp('info');
    trace = await loggedApp('trace');
  });
  afterAll(async () => {
    await info?.t.close();
    await trace?.t.close();
  });

  it('carries the method, the route pattern, the status and the error code', async () => {
    const admin = adminClient(info.t);
    const channelId = info.t.uniqueId('logged');
    await admin.createChannel(channelId);
    await admin.call('POST', `/api/v2/channel/${channelId}-missing/users`, { userIds: ['nobody'] }, { 'x-request-id': 'log-404' });
    await admin.call('POST', `/api/v2/channel/${channelId}/displayName`, { displayName: 'Renamed' }, { 'x-request-id': 'log-200' });
    const lines = completed(info.records());
    const notFound = lines.find((line) => line.reqId === 'log-404');
    expect(notFound).toMatchObject({ level: 30, method: 'POST', route: '/api/v2/channel/:channelId/users', statusCode: 404, errorCode: 400400 });
    expect(typeof notFound?.responseTime).toBe('number');
    const ok = lines.find((line) => line.reqId === 'log-200');
    expect(ok).toMatchObject({ level: 30, method: 'POST', route: '/api/v2/channel/:channelId/displayName', statusCode: 200 });
    expect(ok).not.toHaveProperty('errorCode');
    // Patterns, never the ids of the raw URL.
    expect(JSON.stringify(lines)).not.toContain(channelId);
    // Nothing but the completed line per request at info.
    expect(info.records().filter((record) => record.msg === 'incoming request')).toEqual([]);
  });

  it('logs health probes and metrics at debug only', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      await info.t.app.inject({ method: 'GET', url, headers: { 'x-request-id': `probe-info${url.replace('/', '-')}` } });
      await trace.t.app.inject({ method: 'GET', url, headers: { 'x-request-id': `probe-trace${url.replace('/', '-')}` } });
    }
    expect(info.records().filter((record) => String(record.reqId).startsWith('probe-'))).toEqual([]);
    const probes = completed(trace.records()).filter((record) => String(record.reqId).startsWith('probe-trace'));
    expect(probes.map((record) => [record.route, record.level])).toEqual([
      ['/healthz', 20],
      ['/readyz', 20],
      ['/metrics', 20],
    ]);
  });

  it('never writes a token of the stream query, accepted or refused', async () => {
    const admin = adminClient(trace.t);
    const userId = trace.t.uniqueId('streamer');
    await admin.createUser(userId);
    const { token } = await createTokensService({ db: trace.t.storage.db, clock: trace.t.clock }).issue({ kind: 'user', userId, expiresInMs: 60_000 });
    const address = await trace.t.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${token}&since=0`);
    await new Promise((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
    socket.close();
    await new Promise((resolve) => socket.on('close', resolve));
    const refused = `refused-${token.slice(-20)}`;
    expect((await trace.t.app.inject({ method: 'GET', url: `/client/v1/stream?token=${refused}` })).statusCode).toBe(401);
    expect((await trace.t.app.inject({ method: 'GET', url: `/client/v1/stream?token=${token}` })).statusCode).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const log = trace.text();
    expect(log).toContain('/client/v1/stream');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(-20));
  });
});
