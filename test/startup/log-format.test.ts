import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../cli/processes.js';

const SCRIPT = '/usr/bin/script';
const hasScript = fs.existsSync(SCRIPT);
if (!hasScript) process.stdout.write(`the terminal log format test is skipped: ${SCRIPT} (util-linux) is not installed.\n`);

const ENV_CLEARED = ['DATABASE_URL', 'REDIS_URL', 'PARLEY_ADMIN_TOKEN', 'LOG_LEVEL', 'PARLEY_DEBUG', 'PUBLIC_URL', 'OIDC_ISSUER'];

/** `npm start` as an operator runs it, until it serves, a request is answered and its line is written. */
async function serveOnce(command: 'pipe' | 'terminal', dataDir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' };
  for (const name of ENV_CLEARED) delete env[name];
  const server = 'node --import tsx src/main.ts';
  // script(1) runs the server on a pseudo-terminal, as in an operator's shell.
  const child: ChildProcess =
    command === 'terminal'
      ? spawn(SCRIPT, ['-qefc', server, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    let address: string | undefined;
    while (address === undefined) {
      if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
      address = /Parley is serving on (http:\/\/[0-9.:]+)/.exec(output)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fetch(`${address}/api/v2/roles`, { headers: { 'x-request-id': 'format-check' } });
    while (!output.includes('format-check')) {
      if (Date.now() > deadline) throw new Error(`no request line:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return output;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Readable lines on a terminal, JSON lines everywhere else (a pipe, a file, a log collector). */
describe('the log format', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is JSON lines when stdout is not a terminal', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const output = await serveOnce('pipe', dir);
    const line = output
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((record) => record.reqId === 'format-check');
    expect(line).toMatchObject({ level: 30, msg: 'request completed', method: 'GET', route: '/api/v2/roles', statusCode: 401, errorCode: 400100 });
  });

  it.skipIf(!hasScript)('is readable, colored lines on a terminal', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const output = await serveOnce('terminal', dir);
    expect(output).not.toContain('"level":');
    // pino-pretty: `[12:00:00.000] INFO: request completed`, colored, then the fields one per line.
    expect(output).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] \x1b\[32mINFO\x1b\[39m.*request completed/);
    const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).toContain('route: "/api/v2/roles"');
    expect(plain).toContain('errorCode: 400100');
  });
});
