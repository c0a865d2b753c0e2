import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runServer, tempDataDir } from '../cli/processes.js';

const PASSWORD = 'redis-secret-not-for-printing';

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A REDIS_URL whose Redis does not answer (nothing listens there, or something accepts and never
 * answers, as behind a firewall that drops packets) stops the start-up within 15 s, in one line that
 * names the address and what to check, exit code 1, without the password and without a stack trace
 * unless PARLEY_DEBUG asks for one.
 */
describe('a server start whose Redis does not answer', { timeout: 120_000 }, () => {
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let silentPort: number;
  const dataDirs: string[] = [];
  const dataDir = () => {
    const dir = tempDataDir();
    dataDirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fails within 15 s with one line naming the address and what to check', async () => {
    const refusedPort = await closedPort();
    // Beside them, a start refused for its configuration right after the boot: the differences are the
    // time spent on Redis, whatever the machine's load makes of the TypeScript boot.
    const [baseline, refused, quiet, debug] = await Promise.all([
      runServer({ DATA_DIR: dataDir(), PORT: 'eighty' }, 60_000),
      runServer({ DATA_DIR: dataDir(), REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${refusedPort}` }, 60_000),
      runServer({ DATA_DIR: dataDir(), REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${silentPort}` }, 60_000),
      runServer({ DATA_DIR: dataDir(), REDIS_URL: `redis://127.0.0.1:${refusedPort}`, PARLEY_DEBUG: '1' }, 60_000),
    ]);

    expect(refused.code).toBe(1);
    expect(linesOf(refused.stderr)).toEqual([`parley: cannot reach Redis at 127.0.0.1:${refusedPort} (connection refused): is it running? check REDIS_URL`]);
    expect(quiet.code).toBe(1);
    expect(linesOf(quiet.stderr)).toEqual([
      `parley: cannot reach Redis at 127.0.0.1:${silentPort} (no answer within 5 s): is it running, and can this machine reach it? check REDIS_URL and firewalls`,
    ]);
    for (const result of [refused, quiet]) expect(result.stderr + result.stdout).not.toContain(PASSWORD);
    expect(baseline.code).toBe(1);
    expect(refused.ms - baseline.ms).toBeLessThan(15_000);
    expect(quiet.ms - baseline.ms).toBeLessThan(15_000);

    // PARLEY_DEBUG=1 adds where it failed.
    expect(debug.code).toBe(1);
    expect(linesOf(debug.stderr)[0]).toBe(`parley: cannot reach Redis at 127.0.0.1:${refusedPort} (connection refused): is it running? check REDIS_URL`);
    expect(linesOf(debug.stderr).length).toBeGreaterThan(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
