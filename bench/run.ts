import type { BenchSuite } from './lib.js';
import { channelsSuite } from './suites/channels.js';
import { consoleSuite } from './suites/console.js';
import { messagesSuite } from './suites/messages.js';
import { moderationSuite } from './suites/moderation.js';
import { reactionsSuite } from './suites/reactions.js';
import { identitySuite } from './suites/identity.js';
import { traySuite } from './suites/tray.js';
import { realtimeSuite } from './suites/realtime.js';
import { retentionSuite } from './suites/retention.js';
import { sdkSuite } from './suites/sdk.js';
import { statsSuite } from './suites/stats.js';

/**
 * `npm run bench [suite ...]`: runs the named suites, or all, and prints a table per suite.
 * Benchmarks are not tests: nothing here asserts; read the figures with the machine's noise in mind.
 * BENCH_SECONDS shortens every load phase (default 10).
 * BENCH_COMPARE_REF=<git ref> makes the messages suite measure the current tree against that commit
 * instead (rounds alternating between the two servers; BENCH_ROUNDS rounds, default 4).
 */
const suites: BenchSuite[] = [
  channelsSuite,
  messagesSuite,
  identitySuite,
  moderationSuite,
  reactionsSuite,
  traySuite,
  realtimeSuite,
  retentionSuite,
  sdkSuite,
  consoleSuite,
  statsSuite,
];

const wanted = process.argv.slice(2);
for (const suite of suites) {
  if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
  process.stdout.write(`\n# ${suite.name}\n`);
  await suite.run();
}
