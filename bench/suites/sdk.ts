import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { type BenchSuite, ROOT } from '../lib.js';

/**
 * The SDK's weight in a browser app: its ESM entry bundled and minified as an app's bundler would ship
 * it (esbuild, platform browser, `openapi-fetch` included, `ws` left out as the package's own build
 * does: browsers have a WebSocket), a minimal app that imports only `createClient` (what tree-shaking
 * leaves), and the files `npm run sdk:build` wrote to packages/client/dist when they are there. Each
 * raw and gzip (level 9, as a server would compress it once). Then the npm tarball: packed and unpacked
 * bytes and files, as `npm pack` reports them. Nothing here asserts (test/sdk/pack.test.ts bounds the size).
 */
const PACKAGE = path.join(ROOT, 'packages/client');
const SOURCE = path.join(PACKAGE, 'src');
const DIST = path.join(PACKAGE, 'dist');

/** Imports only `createClient`, as the smallest app that calls the API would. */
const MINIMAL_APP = `
import { createClient } from './index.ts';
const client = createClient({ baseUrl: location.origin, tokenProvider: 'token' });
client.me().then((me) => console.log(me.userId));
`;

interface Artifact {
  name: string;
  bytes: Uint8Array;
}

/** Bundles one entry (a file, or the app's text) for browsers; answers the single output file. */
async function bundle(name: string, entry: { file: string } | { contents: string }): Promise<Artifact> {
  const result = await build({
    ...('file' in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.contents, resolveDir: SOURCE, sourcefile: 'app.ts', loader: 'ts' } }),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['ws'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`${name}: esbuild wrote no file`);
  // Anything from `ws` in a browser bundle would be dead weight: the package keeps it out.
  const inputs = Object.keys(result.metafile.inputs);
  if (inputs.some((input) => input.includes('node_modules/ws/'))) throw new Error(`${name}: the bundle holds the ws package`);
  return { name, bytes: output.contents };
}

/**
 * The JavaScript tsup wrote, if `npm run sdk:build` ran (declarations and source maps are not shipped
 * code): not minified, and without `openapi-fetch`, which the app's bundler adds from its own install.
 */
function distFiles(): Artifact[] {
  if (!fs.existsSync(DIST)) return [];
  return fs
    .readdirSync(DIST)
    .filter((file) => file.endsWith('.js') || file.endsWith('.cjs'))
    .sort()
    .map((file) => ({ name: `dist/${file} (sdk:build: not minified, without openapi-fetch)`, bytes: fs.readFileSync(path.join(DIST, file)) }));
}

interface PackSummary {
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/**
 * What `npm pack` puts in the published tarball, read with `--dry-run`: its prepack builds dist/ first
 * (tsup and the shared declarations), so the numbers are those of the package as published.
 */
function packSummary(): PackSummary {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: PACKAGE,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  // Lifecycle scripts may print before the JSON: the answer is the last JSON array.
  const [packed] = JSON.parse(output.slice(output.lastIndexOf('\n[') + 1)) as PackSummary[];
  if (packed === undefined) throw new Error('npm pack --dry-run answered no package');
  return packed;
}

function printPack(packed: PackSummary): void {
  const lines = [
    '\n## @parley/client: the npm tarball (npm pack)',
    '| tarball bytes | unpacked bytes | files |',
    '|---:|---:|---:|',
    `| ${packed.size} | ${packed.unpackedSize} | ${packed.entryCount} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printSizes(artifacts: Artifact[]): void {
  const rows = artifacts.map((artifact) => `| ${artifact.name} | ${artifact.bytes.length} | ${gzipSync(artifact.bytes, { level: 9 }).length} |`);
  const lines = ['\n## @parley/client: what an app ships', '| artifact | raw bytes | gzip bytes |', '|---|---:|---:|', ...rows];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export const sdkSuite: BenchSuite = {
  name: 'sdk',
  async run() {
    const packed = packSummary();
    const artifacts = [
      await bundle('src/index.ts, every export (esbuild, minified, browser ESM)', { file: path.join(SOURCE, 'index.ts') }),
      await bundle('an app importing only createClient (tree-shaken)', { contents: MINIMAL_APP }),
      ...distFiles(),
    ];
    if (!fs.existsSync(DIST)) process.stdout.write('(packages/client/dist is absent: `npm run sdk:build` adds its files to the table)\n');
    printSizes(artifacts);
    printPack(packed);
  },
};
