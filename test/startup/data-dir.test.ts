import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { linesOf, runParley, runServer, tempDataDir } from '../cli/processes.js';

/** DATA_DIR problems are refused before anything is written, with what to do. */
describe('a data directory that lost its secret.key', { timeout: 120_000 }, () => {
  let dataDir: string;
  let keyFile: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    keyFile = path.join(dataDir, 'secret.key');
    const { app } = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    await app.close();
    expect(fs.existsSync(keyFile)).toBe(true);
    fs.rmSync(keyFile);
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to start and writes no new key file', async () => {
    await expect(buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }))).rejects.toThrow(
      /secret\.key is missing, and this database was set up with a server key: restore secret\.key/,
    );
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  it('the command line refuses the same way, in one line, and writes no key file either', async () => {
    const [server, clients] = await Promise.all([runServer({ DATA_DIR: dataDir }), runParley(['clients', 'list'], { DATA_DIR: dataDir })]);
    for (const result of [server, clients]) {
      expect(result.code).toBe(1);
      expect(linesOf(result.stderr)).toEqual([
        expect.stringMatching(
          /^parley: \S+secret\.key is missing, and this database was set up with a server key: restore secret\.key from a backup of DATA_DIR, or set PARLEY_SECRET_KEY/,
        ),
      ]);
    }
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  it('a fresh data directory still gets its key file at the first start', async () => {
    const fresh = tempDataDir();
    try {
      const { app } = await buildApp(loadConfig({ DATA_DIR: fresh, LOG_LEVEL: 'silent' }));
      await app.close();
      const file = path.join(fresh, 'secret.key');
      expect(fs.readFileSync(file, 'utf8').length).toBeGreaterThanOrEqual(32);
      expect(fs.statSync(file).mode & 0o077).toBe(0);
      // And the next start accepts it.
      const again = await buildApp(loadConfig({ DATA_DIR: fresh, LOG_LEVEL: 'silent' }));
      await again.app.close();
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('DATA_DIR pointing at a file', { timeout: 120_000 }, () => {
  let parent: string;
  let file: string;

  beforeAll(() => {
    parent = tempDataDir();
    file = path.join(parent, 'not-a-directory');
    fs.writeFileSync(file, 'x');
  });
  afterAll(() => {
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('is refused at start and in the command line with "DATA_DIR x is a file, not a directory"', async () => {
    const [server, migrate] = await Promise.all([runServer({ DATA_DIR: file }), runParley(['migrate'], { DATA_DIR: file })]);
    for (const result of [server, migrate]) {
      expect(result.code).toBe(1);
      expect(linesOf(result.stderr)).toEqual([
        `parley: DATA_DIR ${file} is a file, not a directory: point DATA_DIR at a directory (it is created if missing).`,
      ]);
    }
  });

  it('a DATA_DIR below a file is refused too, naming the file', () => {
    expect(() => loadConfig({ DATA_DIR: path.join(file, 'data') })).toThrow(`DATA_DIR ${path.join(file, 'data')} cannot be created because ${file} is a file`);
  });
});
