import { spawnSync } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');

/**
 * The console's build (packages/console/dist), made when missing or older than its sources, as
 * `npm start` makes it; quick when it is current. A failed build is told here and fails only the tests
 * that serve the real build (test/surfaces/console/build.test.ts), not the whole run.
 */
function ensureConsoleBuild(): void {
  const result = spawnSync(process.execPath, [path.join(REPO, 'scripts/ensure-console.mjs')], { cwd: REPO, encoding: 'utf8' });
  if (result.status === 0) return;
  // The end of the build's output says why; the whole of it is `npm run console:build`'s.
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trimEnd()
    .split('\n');
  process.stdout.write(
    `${output.slice(-15).join('\n')}\nThe console build failed: the tests of the served console will fail, the others run. npm run console:build shows it all.\n`,
  );
}

/** Says once, at the top of the run, which database variants run and why the others do not. */
export default function setup(): void {
  if (!process.env.TEST_DATABASE_URL) {
    process.stdout.write('PostgreSQL variant skipped: TEST_DATABASE_URL is not set (SQLite variant runs).\n');
  } else {
    process.stdout.write('Running every database test on SQLite and on PostgreSQL (TEST_DATABASE_URL).\n');
  }
  if (!process.env.TEST_REDIS_URL) {
    process.stdout.write('Redis variant skipped: TEST_REDIS_URL is not set.\n');
  }
  ensureConsoleBuild();
}
