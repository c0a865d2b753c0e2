import { type LoadOptions, type LoadSample, measure, percentile, processCpuSeconds, type RunningServer, sampleLoad, startParley } from '../lib.js';
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

/** A load run and the CPU seconds the server process spent during it (null without /proc). */
interface Sample extends LoadSample {
  serverCpuSeconds: number | null;
}

interface Round {
  first: SideName;
  ref: Sample;
  current: Sample;
}

async function sampleWithCpu(server: RunningServer, options: LoadOptions): Promise<Sample> {
  const before = processCpuSeconds(server.pid);
  const sample = await sampleLoad(options);
  const after = processCpuSeconds(server.pid);
  return { ...sample, serverCpuSeconds: before === null || after === null ? null : after - before };
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
    const firstSample = await sampleWithCpu(sides[first], { ...phase.load(sides[first]), connections: CONNECTIONS, durationSeconds });
    const secondSample = await sampleWithCpu(sides[second], { ...phase.load(sides[second]), connections: CONNECTIONS, durationSeconds });
    rounds.push(first === 'ref' ? { first, ref: firstSample, current: secondSample } : { first, ref: secondSample, current: firstSample });
  }
  return rounds;
}

interface Figures {
  requestsPerSecond: number;
  p99Ms: number;
  failures: number;
  /** Server CPU microseconds per response; null without /proc. */
  cpuMicrosPerRequest: number | null;
}

/** Pooled: all responses over all seconds, and the p99 of every request of every sample together. */
function figures(samples: Sample[]): Figures {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const seconds = Math.max(0.001, sum(samples.map((sample) => sample.seconds)));
  const responses = sum(samples.map((sample) => sample.responses));
  const cpuSeconds = samples.map((sample) => sample.serverCpuSeconds);
  return {
    cpuMicrosPerRequest: cpuSeconds.includes(null) || responses === 0 ? null : (sum(cpuSeconds as number[]) * 1e6) / responses,
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
  const cpu = (value: number | null) => (value === null ? 'n/a' : Math.round(value));
  const cpuRatio =
    ref.cpuMicrosPerRequest === null || current.cpuMicrosPerRequest === null ? 'n/a' : (current.cpuMicrosPerRequest / ref.cpuMicrosPerRequest).toFixed(2);
  const cells = [
    label,
    first,
    Math.round(ref.requestsPerSecond),
    ref.p99Ms.toFixed(1),
    Math.round(current.requestsPerSecond),
    current.p99Ms.toFixed(1),
    rateRatio,
    p99Ratio,
    cpu(ref.cpuMicrosPerRequest),
    cpu(current.cpuMicrosPerRequest),
    cpuRatio,
  ];
  return `| ${cells.join(' | ')} |`;
}

function phaseTable(phase: Phase, rounds: Round[]): string[] {
  const ref = figures(rounds.map((round) => round.ref));
  const current = figures(rounds.map((round) => round.current));
  const lines = [
    `\n### ${phase.title}`,
    '| round | first | ref req/s | ref p99 ms | current req/s | current p99 ms | req/s current/ref | p99 current/ref | ref CPU µs/req | current CPU µs/req | CPU current/ref |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
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
    "CPU µs/req: the server process's user + system CPU time during the load over the responses it gave (from /proc, 10 ms resolution); it counts work done, so other programs on the machine move it far less than req/s.",
    'current/ref above 1 in req/s, or below 1 in p99 and CPU µs/req, means the current tree is faster.',
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
