import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runServer, tempDataDir } from '../cli/processes.js';

/** `npm start` on a port another process holds says so, and what to do, in one line. */
describe('a server start on a port that is taken', { timeout: 120_000 }, () => {
  let holder: net.Server;
  let port: number;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 1 with "port N on 127.0.0.1 is in use (another Parley?): stop it or set PORT"', async () => {
    const result = await runServer({ DATA_DIR: dataDir, PORT: String(port) });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([`parley: port ${port} on 127.0.0.1 is in use (another Parley?): stop it or set PORT`]);
    expect(result.stdout).not.toContain('serving on');
  });
});
