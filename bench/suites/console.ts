import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { type BenchSuite, percentile, ROOT, startParley } from '../lib.js';

/**
 * The console's first load: the JavaScript and CSS index.html pulls in (raw, gzip, and brotli, which the
 * server sends from the build's .br files to browsers that accept it), and the time until the login screen answers clicks in Chromium, over
 * BENCH_CONSOLE_LOADS cold loads (default 7: a fresh browser context each, so nothing is cached) and as
 * many warm ones. Builds the console first when its sources changed. Nothing here asserts.
 */
const CHROMIUM = '/usr/bin/chromium';
const DIST = path.join(ROOT, 'packages/console/dist');

interface Asset {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
}

/** The scripts, module preloads and style sheets index.html names, with their sizes. */
function firstLoadAssets(): Asset[] {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const names = [...html.matchAll(/(?:src|href)="\/console\/([^"]+\.(?:js|css))"/g)].map((match) => match[1] as string);
  return [...new Set(names)].map((file) => {
    const bytes = fs.readFileSync(path.join(DIST, file));
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes).length };
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function printAssets(assets: Asset[]): void {
  const rows = assets.map((asset) => `| ${asset.file} | ${kb(asset.raw)} | ${kb(asset.gzip)} | ${kb(asset.brotli)} |`);
  const sum = (kind: string, key: 'raw' | 'gzip' | 'brotli') =>
    assets.filter((asset) => asset.file.endsWith(kind)).reduce((total, asset) => total + asset[key], 0);
  for (const [label, kind] of [
    ['all JavaScript', '.js'],
    ['all CSS', '.css'],
  ] as const) {
    rows.push(`| **${label}** | ${kb(sum(kind, 'raw'))} | ${kb(sum(kind, 'gzip'))} | ${kb(sum(kind, 'brotli'))} |`);
  }
  process.stdout.write(`${['| first-load file | raw | gzip | brotli (as served) |', '|---|---:|---:|---:|', ...rows].join('\n')}\n\n`);
}

/** Milliseconds from navigation start until the sign-in button is on screen and enabled. */
async function timeToInteractive(page: import('playwright-core').Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const button = page.getByRole('button', { name: 'Sign in with Parley' });
  await button.waitFor({ state: 'visible', timeout: 30_000 });
  return page.evaluate(() => performance.now());
}

async function measureLoads(url: string, loads: number): Promise<{ cold: number[]; warm: number[] }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let i = 0; i < loads; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      cold.push(await timeToInteractive(page, url));
      warm.push(await timeToInteractive(page, url));
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return { cold, warm };
}

export const consoleSuite: BenchSuite = {
  name: 'console',
  async run() {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/ensure-console.mjs')], { stdio: 'inherit' });
    printAssets(firstLoadAssets());
    if (!fs.existsSync(CHROMIUM)) {
      process.stdout.write(`time to interactive skipped: ${CHROMIUM} is absent (apt-get install -y chromium)\n`);
      return;
    }
    const server = await startParley();
    try {
      const loads = Number(process.env.BENCH_CONSOLE_LOADS ?? 7);
      const { cold, warm } = await measureLoads(`${server.url}/console/`, loads);
      const row = (name: string, values: number[]) =>
        `| ${name} | ${values.length} | ${percentile(values, 0.5).toFixed(0)} ms | ${Math.max(...values).toFixed(0)} ms |`;
      const header = ['| login screen interactive (Chromium, 1280x800, loopback) | loads | median | worst |', '|---|---:|---:|---:|'];
      process.stdout.write(`${[...header, row('cold cache', cold), row('warm cache', warm)].join('\n')}\n`);
    } finally {
      await server.stop();
    }
  },
};
