import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Parley, startParley } from './helpers.js';

const packageDir = path.resolve(import.meta.dirname, '../../packages/client');
const require = createRequire(import.meta.url);

function findTsup(): string | null {
  try {
    return require.resolve('tsup/package.json', { paths: [packageDir] });
  } catch {
    return null;
  }
}

const tsup = findTsup();
if (tsup === null) console.log('SDK build test skipped: tsup is not installed (npm install).');

interface BuiltModule {
  createClient: (options: { baseUrl: string; tokenProvider: string }) => { me(): Promise<{ userId: string }>; channels(): Promise<unknown> };
  ParleyError: new (...args: never[]) => Error;
  createSignIn: unknown;
  ParleyStream: unknown;
}

interface ServerModule {
  createAdminClient: (options: { baseUrl: string; adminToken: string }) => { createChannel(body: { channelId: string; type: 'standard' }): Promise<unknown> };
  ParleyError: unknown;
}

/** The package as npm publishes it: tsup's ESM and CommonJS outputs, imported by Node as an app would. */
describe.skipIf(tsup === null)('SDK: the built package', () => {
  let p: Parley;

  beforeAll(async () => {
    // What `npm run build` runs: tsup, then one set of declarations for both module systems.
    execFileSync(process.execPath, [path.join(path.dirname(tsup as string), 'dist/cli-default.js')], { cwd: packageDir, stdio: 'pipe' });
    execFileSync(process.execPath, [path.join(packageDir, 'scripts/finish-declarations.mjs')], { cwd: packageDir, stdio: 'pipe' });
    p = await startParley('sqlite');
  }, 180_000);
  afterAll(async () => {
    await p?.t.close();
  });

  it('builds ESM and CommonJS with declarations that call a running server', async () => {
    const dist = path.join(packageDir, 'dist');
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'server.js', 'server.cjs', 'server.d.ts']) {
      expect(fs.existsSync(path.join(dist, file)), file).toBe(true);
    }
    const esm = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as BuiltModule;
    const cjs = require(path.join(dist, 'index.cjs')) as BuiltModule;
    const ann = await p.user('ann');
    for (const built of [esm, cjs]) {
      expect(typeof built.createSignIn).toBe('function');
      expect(typeof built.ParleyStream).toBe('function');
      const client = built.createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });
      expect((await client.me()).userId).toBe(ann.userId);
      const refused = await built
        .createClient({ baseUrl: p.baseUrl, tokenProvider: 'bad' })
        .channels()
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(built.ParleyError);
    }
    const serverEsm = (await import(pathToFileURL(path.join(dist, 'server.js')).href)) as ServerModule;
    const serverCjs = require(path.join(dist, 'server.cjs')) as ServerModule;
    for (const [server, client] of [
      [serverEsm, esm],
      [serverCjs, cjs],
    ] as const) {
      expect(typeof server.createAdminClient).toBe('function');
      // One ParleyError whichever entry point it comes from: the admin client's refusals are the index's ParleyError.
      expect(server.ParleyError).toBe(client.ParleyError);
      const refused = await server
        .createAdminClient({ baseUrl: p.baseUrl, adminToken: 'not a token' })
        .createChannel({ channelId: 'x', type: 'standard' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(client.ParleyError);
    }
    // One set of declarations: the ESM entry's re-exports the CommonJS one's.
    expect(fs.readFileSync(path.join(dist, 'index.d.ts'), 'utf8').trim()).toBe("export * from './index.cjs';");
  });

  it('packs a tarball with the built files and the docs, without the OpenAPI document', () => {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8' });
    const [packed] = JSON.parse(output) as Array<{ name: string; files: Array<{ path: string }> }>;
    const files = (packed?.files ?? []).map((file) => file.path);
    expect(packed?.name).toBe('@parley/client');
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/server.js']),
    );
    expect(files).not.toContain('openapi.json');
    expect(files.some((file) => file.startsWith('src/'))).toBe(false);
  });
});
