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
}
