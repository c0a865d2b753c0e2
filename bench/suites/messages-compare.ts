import { type LoadOptions, type LoadSample, measure, percentile, type RunningServer, sampleLoad, startParley } from '../lib.js';
import { describeCurrentTree, type RefTree, withRefTree } from '../worktree.js';
import { adminHeaders, createChannel, createLoad, pageLoad, TEXT_BODY } from './message-requests.js';

/**
 * BENCH_COMPARE_REF=<git ref> npm run bench messages: the current tree against an earlier commit,
 * measured in the same run so that both sides meet the same machine. The ref is checked out in a
 * temporary worktree; each side is a server on its own fresh SQLite DATA_DIR with the same data,
 * set up through HTTP (not written into the database file, whose schema may differ between the two
 * commits). Each phase runs in rounds, one load run per side per round, and the side that goes first
 * changes every round: the shared machine's speed drifts within a minute, and alternating spreads
 * that drift over both sides instead of letting it fall on whichever ran second.
 * BENCH_SECONDS / 2 per side per round (BENCH_SECONDS default 10); BENCH_ROUNDS rounds (default 4).
 */
const ROUNDS = positiveInteger(process.env.BENCH_ROUNDS, 4);
const WARM_UP_SECONDS = 2;
const PAGE_CHANNEL_SIZE = 100;
const CONNECTIONS = 50;

type SideName = 'ref' | 'current';
type Sides = Record<SideName, RunningServer>;

interface Phase {
  title: string;
  load(server: RunningServer): LoadOptions;
}

interface Round {
  first: SideName;
  ref: LoadSample;
  current: LoadSample;
}

/**
 * The page read goes first: both databases then hold exactly the same rows while it runs. The create
 * adds as many messages as each side manages, so after it the two differ.
 */
const PHASES: Phase[] = [
  {
    title: `message page read: POST /api/v2/messages, newest 50 of a ${PAGE_CHANNEL_SIZE}-message channel`,
    load: (server) => pageLoad(server, 'page', { last: 50 }),
  },
  { title: 'admin message create: POST /api/v2/message (text, admin token)', load: (server) => createLoad(server, 'bench') },
];

/** Per side per round, as in the suite's other alternating comparisons. */
function roundSeconds(): number {
  return Math.max(1, Number(process.env.BENCH_SECONDS ?? 10) / 2);
}

function positiveInteger(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The same channels and messages on each side, made the same way. */
async function setUpData(server: RunningServer): Promise<void> {
  await createChannel(server, 'bench');
  await createChannel(server, 'page');
  for (let count = 0; count < PAGE_CHANNEL_SIZE; count += 1) {
    const response = await fetch(`${server.url}/api/v2/message`, { method: 'POST', headers: adminHeaders(server), body: TEXT_BODY('page') });
    if (!response.ok) throw new Error(`seeding message ${count + 1}: ${response.status} ${await response.text()}`);
  }
}

async function runPhase(phase: Phase, sides: Sides): Promise<Round[]> {
  const durationSeconds = roundSeconds();
  for (const side of [sides.ref, sides.current]) await measure('warm-up', { ...phase.load(side), connections: CONNECTIONS, durationSeconds: WARM_UP_SECONDS });
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const first: SideName = round % 2 === 0 ? 'ref' : 'current';
    const second: SideName = first === 'ref' ? 'current' : 'ref';
    const firstSample = await sampleLoad({ ...phase.load(sides[first]), connections: CONNECTIONS, durationSeconds });
    const secondSample = await sampleLoad({ ...phase.load(sides[second]), connections: CONNECTIONS, durationSeconds });
    rounds.push(first === 'ref' ? { first, ref: firstSample, current: secondSample } : { first, ref: secondSample, current: firstSample });
  }
  return rounds;
}

interface Figures {
  requestsPerSecond: number;
  p99Ms: number;
  failures: number;
}

/** Pooled: all responses over all seconds, and the p99 of every request of every sample together. */
function figures(samples: LoadSample[]): Figures {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const seconds = Math.max(0.001, sum(samples.map((sample) => sample.seconds)));
  return {
    requestsPerSecond: sum(samples.map((sample) => sample.responses)) / seconds,
    p99Ms: percentile(
      samples.flatMap((sample) => sample.latenciesMs),
      0.99,
    ),
    failures: sum(samples.map((sample) => sample.failures)),
  };
}

function tableRow(label: string, first: string, ref: Figures, current: Figures): string {
  const rateRatio = (current.requestsPerSecond / Math.max(1e-9, ref.requestsPerSecond)).toFixed(2);
  const p99Ratio = (current.p99Ms / Math.max(1e-9, ref.p99Ms)).toFixed(2);
  const cells = [
    label,
    first,
    Math.round(ref.requestsPerSecond),
    ref.p99Ms.toFixed(1),
    Math.round(current.requestsPerSecond),
    current.p99Ms.toFixed(1),
    rateRatio,
    p99Ratio,
  ];
  return `| ${cells.join(' | ')} |`;
}

function phaseTable(phase: Phase, rounds: Round[]): string[] {
  const ref = figures(rounds.map((round) => round.ref));
  const current = figures(rounds.map((round) => round.current));
  const lines = [
    `\n### ${phase.title}`,
    '| round | first | ref req/s | ref p99 ms | current req/s | current p99 ms | req/s current/ref | p99 current/ref |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rounds.map((round, index) => tableRow(String(index + 1), round.first, figures([round.ref]), figures([round.current]))),
    tableRow(`**all ${rounds.length}**`, '', ref, current),
  ];
  if (ref.failures + current.failures > 0) lines.push(`\nnon-2xx responses or errors: ref ${ref.failures}, current ${current.failures}`);
  return lines;
}

function printComparison(tree: RefTree, results: Array<{ phase: Phase; rounds: Round[] }>): void {
  const lines = [
    `\n## Messages: current tree against ${tree.ref} (commit ${tree.commit})`,
    `current: ${describeCurrentTree()}; ref: a worktree of ${tree.commit.slice(0, 12)} with this tree's node_modules.`,
    `SQLite, each side on its own fresh DATA_DIR with the same data; ${CONNECTIONS} connections; ${ROUNDS} rounds of ${roundSeconds()} s per side, the side that goes first alternating.`,
    ...results.flatMap((result) => phaseTable(result.phase, result.rounds)),
    '\nreq/s: responses per second of load; the "all" row pools every round (all responses over all seconds, p99 over all requests).',
    'current/ref above 1 in req/s, or below 1 in p99, means the current tree is faster.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function startSides(tree: RefTree): Promise<Sides> {
  const ref = await startParley({}, { root: tree.root });
  try {
    return { ref, current: await startParley() };
  } catch (error) {
    await ref.stop();
    throw error;
  }
}

export async function compareMessagesWithRef(ref: string): Promise<void> {
  await withRefTree(ref, async (tree) => {
    const sides = await startSides(tree);
    try {
      await setUpData(sides.ref);
      await setUpData(sides.current);
      process.stdout.write(`ref ${tree.commit.slice(0, 12)} and current tree serving, ${PAGE_CHANNEL_SIZE} messages set up on each\n`);
      const results: Array<{ phase: Phase; rounds: Round[] }> = [];
      for (const phase of PHASES) results.push({ phase, rounds: await runPhase(phase, sides) });
      printComparison(tree, results);
    } finally {
      await sides.ref.stop();
      await sides.current.stop();
    }
  });
}
