import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The server as an operator runs it: a real process, a real port, a real signal. */
describe('the server process', () => {
  it('starts on a port the OS picks, prints where, serves, and stops cleanly on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-proc-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', PARLEY_ADMIN_TOKEN: 'x'.repeat(40) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1] && out.includes('health')) {
            // The banner says where every surface is.
            for (const surface of [
              '/api/v2',
              '/client/v1',
              '/client/v1/stream',
              '/bot/v1',
              '/.well-known/openid-configuration',
              '/notifications/history',
              '/docs',
              '/metrics',
            ]) {
              if (!out.includes(surface)) reject(new Error(`the banner does not name ${surface}: ${out}`));
            }
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      const roles = await fetch(`${url}/api/v2/roles`, { headers: { authorization: `Bearer ${'x'.repeat(40)}` } });
      expect(roles.status).toBe(200);

      const exitCode = await new Promise<number | null>((resolve) => {
        child.on('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
      expect(exitCode).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'parley.sqlite'))).toBe(true);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a bad configuration, saying what to fix', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode).toBe(1);
    expect(stderr).toContain('PORT must be a whole number');
  });
});
