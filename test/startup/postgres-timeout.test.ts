import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runServer, tempDataDir } from '../cli/processes.js';

/**
 * A PostgreSQL address that accepts connections and never answers (a hung server, or a firewall that
 * drops packets) must not hang the start-up: it fails within 15 s, naming the address.
 */
describe('a server start with a PostgreSQL that never answers', { timeout: 120_000 }, () => {
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let port: number;
  let dataDir: string;
  let baselineDataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    baselineDataDir = tempDataDir();
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(baselineDataDir, { recursive: true, force: true });
  });

  it('fails within 15 s with one line naming the address and what to check', async () => {
    // Beside it, a start whose connection is refused at once: the difference between the two is the
    // time spent waiting for PostgreSQL, whatever the machine's load makes of the TypeScript boot.
    const [result, baseline] = await Promise.all([
      runServer({ DATA_DIR: dataDir, DATABASE_URL: `postgres://parley:quiet-password@127.0.0.1:${port}/parley` }, 60_000),
      runServer({ DATA_DIR: baselineDataDir, DATABASE_URL: 'postgres://parley@127.0.0.1:1/parley' }, 60_000),
    ]);
    expect(baseline.code).toBe(1);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^parley: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port} \\(no answer within 10 s\\).*check DATABASE_URL`)),
    ]);
    expect(result.stderr).not.toContain('quiet-password');
    expect(result.ms - baseline.ms).toBeLessThan(15_000);
  });
});
