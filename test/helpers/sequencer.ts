import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the files known to run longest first, so that the last minutes are not one long file on one
 * core while the others idle (on a fresh clone Vitest has no timings yet and orders by file size, which
 * puts these small files last). Within each group Vitest's own order holds.
 */
const LONG_RUNNING = [
  'test/docs/guides',
  'test/http/oversized-bodies',
  'test/cli/',
  'packages/console/test/console.e2e',
  'test/modules/realtime/replay-pending',
  'test/system/',
  'test/startup/',
  'test/sdk/pack',
];

const rank = (spec: TestSpecification): number => {
  const index = LONG_RUNNING.findIndex((prefix) => spec.moduleId.includes(prefix));
  return index === -1 ? LONG_RUNNING.length : index;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Stable: within a rank, Vitest's own order (its timings, or file size) stays.
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
