import os from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/console/test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One process per worker for many files: each file builds its own app on its own database, and the
    // app keeps no module-level state, so files need no fresh process; importing the app again for
    // each of some 150 files cost about four minutes of a 2-core machine.
    isolate: false,
    // One file per core at least: most files wait on sockets, child processes and timers as much as they
    // compute, and Vitest's default (cores - 1) runs them one at a time on a 2-core machine.
    maxWorkers: Math.max(2, os.availableParallelism()),
    sequence: { sequencer: LongestFirst },
  },
});
