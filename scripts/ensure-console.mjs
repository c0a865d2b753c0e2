#!/usr/bin/env node
// Builds the admin console (packages/console -> packages/console/dist) when its build is missing or
// older than its sources; prints nothing when the build is current. Run before `npm start` (prestart)
// and before the tests (test/helpers/global-setup.ts). Plain Node, no dependencies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE = 'packages/console';
/** What the build is made from: a change to any of these makes the build stale. */
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((entry) => `${CONSOLE}/${entry}`);
/** The SDK's sources, which the console imports through its `@parley/source` condition: the bundle holds them too. */
const SDK_SOURCES = ['packages/client/src', 'packages/client/package.json'];
const BUILT = `${CONSOLE}/dist/index.html`;

/** The modification time of the file, or null when it is not there. */
function mtimeOf(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest file under `entry` (a file or a directory), as [path, mtime], or null when there is none. */
function newestUnder(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return null;
  }
  if (!stat.isDirectory()) return [entry, stat.mtimeMs];
  let newest = null;
  for (const name of fs.readdirSync(entry)) {
    const found = newestUnder(path.join(entry, name));
    if (found !== null && (newest === null || found[1] > newest[1])) newest = found;
  }
  return newest;
}

/**
 * Why the console needs building, or null when its build is current. `root` is the repository.
 * @returns {string | null}
 */
export function staleReason(root = ROOT) {
  const built = mtimeOf(path.join(root, BUILT));
  if (built === null) return `${BUILT} is missing`;
  for (const source of [...SOURCES, ...SDK_SOURCES]) {
    const newest = newestUnder(path.join(root, source));
    if (newest !== null && newest[1] > built) return `${path.relative(root, newest[0])} is newer than the build`;
  }
  return null;
}

/**
 * Builds the console when it is stale. Answers null when the build is current (or was just made), else
 * what went wrong, in one line. The build's own output goes to `stdio`.
 * @param {{ root?: string, stdio?: 'inherit' | 'pipe', log?: (line: string) => void }} [options]
 * @returns {string | null}
 */
export function ensureConsole(options = {}) {
  const root = options.root ?? ROOT;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const reason = staleReason(root);
  if (reason === null) return null;
  if (mtimeOf(path.join(root, CONSOLE, 'index.html')) === null) {
    return `cannot build the console: ${CONSOLE}/index.html is missing (the console's sources are not in this checkout)`;
  }
  log(`Building the console (${reason}): npm run console:build`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // NODE_ENV=production whatever the caller runs under (vitest sets "test"): Vite would otherwise bundle
  // React's development build, four times the size.
  const env = { ...process.env, NODE_ENV: 'production' };
  const result = spawnSync(npm, ['run', 'build', '-w', CONSOLE], { cwd: root, env, stdio: options.stdio ?? 'inherit', shell: process.platform === 'win32' });
  if (result.error) return `cannot build the console: ${result.error.message}`;
  if (result.status !== 0) {
    const output = options.stdio === 'pipe' ? `\n${result.stdout}${result.stderr}` : '';
    return `the console build failed (exit ${result.status}): see its output above; npm run console:build runs it again${output}`;
  }
  if (mtimeOf(path.join(root, BUILT)) === null) return `the console build finished without writing ${BUILT}`;
  return null;
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const failure = ensureConsole();
  if (failure !== null) {
    process.stderr.write(`ensure-console: ${failure}\n`);
    process.exit(1);
  }
}
