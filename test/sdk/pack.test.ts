import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoDir = path.resolve(import.meta.dirname, '../..');
const packageDir = path.join(repoDir, 'packages/client');
const require = createRequire(import.meta.url);

function resolveFrom(specifier: string): string | null {
  try {
    return require.resolve(specifier, { paths: [packageDir] });
  } catch {
    return null;
  }
}

const tsup = resolveFrom('tsup/package.json');
if (tsup === null) process.stdout.write('SDK pack test skipped: tsup is not installed (npm install).\n');
const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin/tsc');

/** The environment of a child npm: none of the calling npm's package or lifecycle variables, no output directory override for tsup. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const name = key.toLowerCase();
    if (name.startsWith('npm_package_') || name.startsWith('npm_lifecycle_') || name === 'npm_config_local_prefix') continue;
    if (key === 'PARLEY_SDK_OUT_DIR') continue;
    env[key] = value;
  }
  return env;
}

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: childEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function output(result: SpawnSyncReturns<string>): string {
  return `${result.stdout ?? ''}${result.stderr ?? ''}`;
}

/** Errors of an install that could not reach the registry nor find what it needs in the npm cache. */
const UNREACHABLE = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH/;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    types: [],
  },
};

const TYPED_USE = `import { type ClientOptions, createClient, type ParleyClient, ParleyError } from '@parley/client';
import { createAdminClient } from '@parley/client/server';

const options: ClientOptions = { baseUrl: 'https://chat.example.com', tokenProvider: 'token' };
const client: ParleyClient = createClient(options);
const me: Promise<{ userId: string }> = client.me();
const isParleyError = (error: unknown): boolean => error instanceof ParleyError;
`;

/**
 * The package as an app installs it: `npm pack` (whose prepack builds dist/) on a copy of packages/client
 * without dist/, the tarball installed into an empty project outside the repository, then loaded by
 * Node as ESM and as CommonJS and type-checked by tsc with Node's module resolution in both modes.
 */
describe.skipIf(tsup === null)('SDK: the packed tarball installed in an app', { timeout: 120_000 }, () => {
  let workDir = '';
  let tarball = '';
  let appDir = '';
  let installSkipped: string | null = null;

  beforeAll(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sdk-pack-'));
    // The package's own files without dist/, so only prepack can put dist/ in the tarball; the build's
    // tools (tsup, TypeScript) and the SDK's dependencies come from the repository's node_modules.
    const sourceDir = path.join(workDir, 'client');
    const skip = new Set([path.join(packageDir, 'dist'), path.join(packageDir, 'node_modules')]);
    fs.cpSync(packageDir, sourceDir, { recursive: true, filter: (source) => !skip.has(source) });
    fs.symlinkSync(path.join(repoDir, 'node_modules'), path.join(sourceDir, 'node_modules'), 'dir');

    const packDir = path.join(workDir, 'pack');
    fs.mkdirSync(packDir);
    const packed = run('npm', ['pack', '--pack-destination', packDir], sourceDir);
    if (packed.status !== 0) throw new Error(`npm pack failed:\n${output(packed)}`);
    const [name] = fs.readdirSync(packDir).filter((file) => file.endsWith('.tgz'));
    if (name === undefined) throw new Error(`npm pack wrote no tarball:\n${output(packed)}`);
    tarball = path.join(packDir, name);

    appDir = path.join(workDir, 'app');
    fs.mkdirSync(appDir);
    fs.writeFileSync(path.join(appDir, 'package.json'), `${JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true }, null, 2)}\n`);
    // From the npm cache alone when it holds the SDK's dependencies, else from the registry.
    const offline = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], appDir);
    if (offline.status === 0) return;
    if (!UNREACHABLE.test(output(offline))) throw new Error(`npm install --offline failed:\n${output(offline)}`);
    // Few, short retries: without a network the skip comes in seconds, not minutes.
    const retries = ['--fetch-retries=1', '--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=5000'];
    const online = run('npm', ['install', '--prefer-offline', ...retries, '--no-audit', '--no-fund', tarball], appDir);
    if (online.status === 0) return;
    if (!UNREACHABLE.test(output(online))) throw new Error(`npm install failed:\n${output(online)}`);
    installSkipped = `the SDK's dependencies are neither in the npm cache nor reachable on the registry (${output(online).match(UNREACHABLE)?.[0]})`;
    process.stdout.write(`SDK pack test: installing the tarball is skipped: ${installSkipped}.\n`);
  }, 300_000);

  afterAll(() => {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('packs the ESM and CommonJS builds with one set of declarations for both, under 1 MB unpacked', () => {
    const listing = execFileSync('tar', ['-tvzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    // `tar -tv` lines: mode, owner, size, date, time, path.
    const entries = listing.map((line) => {
      const fields = line.trim().split(/\s+/);
      return { path: (fields.at(-1) ?? '').replace(/^package\//, ''), size: Number(fields[2]) };
    });
    const files = entries.map((entry) => entry.path);
    const unpacked = entries.reduce((sum, entry) => sum + entry.size, 0);
    expect(entries.every((entry) => Number.isSafeInteger(entry.size))).toBe(true);
    expect(unpacked, `unpacked size ${unpacked} bytes: ${JSON.stringify(entries)}`).toBeLessThan(1_000_000);
    // The generated REST types are in the package once, as a CommonJS declaration both entry points share.
    const declarations = entries.filter((entry) => entry.path.endsWith('.d.ts') || entry.path.endsWith('.d.cts'));
    expect(declarations.filter((entry) => entry.size > 50_000)).toHaveLength(1);
    expect(entries.filter((entry) => entry.path.endsWith('.d.ts')).every((entry) => entry.size < 100)).toBe(true);
    expect(files).not.toContain('openapi.json');
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.cjs',
        'dist/index.d.ts',
        'dist/index.d.cts',
        'dist/server.js',
        'dist/server.cjs',
        'dist/server.d.ts',
        'dist/server.d.cts',
      ]),
    );
    expect(files.some((file) => file.startsWith('src/'))).toBe(false);
  });

  it('imports from an ES module', (context) => {
    if (installSkipped) context.skip(installSkipped);
    fs.writeFileSync(
      path.join(appDir, 'esm.mjs'),
      `import { createClient } from '@parley/client';\nimport { createAdminClient } from '@parley/client/server';\nconsole.log(typeof createClient, typeof createAdminClient);\n`,
    );
    expect(execFileSync(process.execPath, ['esm.mjs'], { cwd: appDir, encoding: 'utf8' }).trim()).toBe('function function');
  });

  it('requires from CommonJS', (context) => {
    if (installSkipped) context.skip(installSkipped);
    fs.writeFileSync(
      path.join(appDir, 'cjs.cjs'),
      `const { createClient } = require('@parley/client');\nconst { createAdminClient } = require('@parley/client/server');\nconsole.log(typeof createClient, typeof createAdminClient);\n`,
    );
    expect(execFileSync(process.execPath, ['cjs.cjs'], { cwd: appDir, encoding: 'utf8' }).trim()).toBe('function function');
  });

  it('type-checks ES module (.mts) and CommonJS (.cts) code against the matching declarations', (context) => {
    if (installSkipped) context.skip(installSkipped);
    const dir = path.join(appDir, 'typed');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['*.mts', '*.cts'] }, null, 2));
    fs.writeFileSync(path.join(dir, 'use.mts'), `${TYPED_USE}export { me, isParleyError, createAdminClient };\n`);
    fs.writeFileSync(path.join(dir, 'use.cts'), `${TYPED_USE}export = { me, isParleyError, createAdminClient };\n`);
    const checked = run(process.execPath, [tsc, '-p', '.', '--explainFiles'], dir);
    const explained = output(checked);
    expect(explained).not.toMatch(/error TS/);
    expect(checked.status).toBe(0);
    // import resolves to the ESM declarations, require to the CommonJS ones, which the ESM ones re-export.
    const importedBy = (file: string, lines: string) => new RegExp(`@parley/client/dist/${file}\\n(?:\\s+Imported via .*\\n)*?\\s+Imported via ${lines}`);
    expect(explained).toMatch(importedBy('index\\.d\\.ts', "'@parley/client' from file 'use\\.mts'"));
    expect(explained).toMatch(importedBy('index\\.d\\.cts', "'@parley/client' from file 'use\\.cts'"));
    expect(explained).toMatch(importedBy('index\\.d\\.cts', "'\\./index\\.cjs' from file '.*/dist/index\\.d\\.ts'"));
    expect(explained).toMatch(importedBy('server\\.d\\.cts', "'@parley/client/server' from file 'use\\.cts'"));
  });

  it('fails tsc on a call with the wrong option types, as ESM and as CommonJS', (context) => {
    if (installSkipped) context.skip(installSkipped);
    const dir = path.join(appDir, 'mistyped');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['*.mts', '*.cts'] }, null, 2));
    const mistyped = `import { createClient } from '@parley/client';\n\nconst client = createClient({ baseUrl: 42, tokenProvider: 'token' });\n`;
    fs.writeFileSync(path.join(dir, 'wrong.mts'), `${mistyped}export { client };\n`);
    fs.writeFileSync(path.join(dir, 'wrong.cts'), `${mistyped}export = client;\n`);
    const checked = run(process.execPath, [tsc, '-p', '.'], dir);
    expect(checked.status).not.toBe(0);
    expect(output(checked)).toMatch(/wrong\.mts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    expect(output(checked)).toMatch(/wrong\.cts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  });
});
