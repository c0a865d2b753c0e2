import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../cli/processes.js';
import { type Guide, parseGuide, type RunnableBlock } from './markdown.js';
import { outputDifferences } from './matching.js';
import { type BlockResult, freePort, ShellSession } from './shell.js';

/**
 * The guides (docs/guides/*.md) and the README walk-through, run as a reader would: their marked
 * blocks (see markdown.ts) in bash, one session per guide, against a real Parley that the guide's
 * own `npm start` block starts on a fresh DATA_DIR (and a fresh PostgreSQL database in the
 * postgres variant). Each block must exit 0 and print what the guide shows after it.
 */
const REPO = path.resolve(import.meta.dirname, '../..');
const GUIDE_DIR = path.join(REPO, 'docs/guides');
const DOCUMENTS = ['README.md', ...fs.readdirSync(GUIDE_DIR).map((name) => `docs/guides/${name}`)].filter((file) => file.endsWith('.md'));
const databases: ('sqlite' | 'postgres')[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const RETRY_FOR_MS = 20_000;

/**
 * The addresses a guide names (127.0.0.1:8080 for Parley, others for a webhook receiver or a second
 * instance) become free ports, and its database and Redis URLs the test's own, in code and samples alike.
 */
interface Rewrite {
  apply: (text: string) => string;
  defaultPort: number;
}

async function rewriteFor(guide: Guide, databaseUrl: string | null): Promise<Rewrite> {
  const texts = guide.blocks.flatMap((block) => [block.code, block.expect?.text ?? '']);
  const ports = new Map<string, number>([['8080', await freePort()]]);
  for (const text of texts) {
    for (const match of text.matchAll(/(?:127\.0\.0\.1|localhost):(\d{2,5})\b|\bPORT=(\d{2,5})\b/g)) {
      const port = (match[1] ?? match[2]) as string;
      if (!ports.has(port)) ports.set(port, await freePort());
    }
  }
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const apply = (text: string): string => {
    const urls: string[] = [];
    const hold = (url: string) => `\u0000${urls.push(url) - 1}\u0000`;
    return text
      .replace(/postgres(?:ql)?:\/\/[^\s"']+/g, (url) => hold(databaseUrl ?? url))
      .replace(/redis:\/\/[^\s"']+/g, () => hold(redisUrl))
      .replace(/(127\.0\.0\.1|localhost):(\d{2,5})\b/g, (_all, host: string, port: string) => `${host}:${ports.get(port) ?? port}`)
      .replace(/\bPORT=(\d{2,5})\b/g, (_all, port: string) => `PORT=${ports.get(port) ?? port}`)
      .replace(/\u0000(\d+)\u0000/g, (_all, index: string) => urls[Number(index)] as string);
  };
  return { apply, defaultPort: ports.get('8080') as number };
}

function describeFailure(block: RunnableBlock, code: string, result: BlockResult, problems: string[], session: ShellSession): string {
  return [
    `block at line ${block.line}:`,
    code,
    `exit code ${result.code}`,
    ...problems,
    `--- stdout ---\n${result.stdout.slice(0, 4000)}`,
    `--- stderr ---\n${result.stderr.slice(0, 4000)}`,
    session.serverOutput(),
  ].join('\n');
}

async function runBlock(session: ShellSession, block: RunnableBlock, rewrite: Rewrite): Promise<string | null> {
  const code = rewrite.apply(block.code);
  const expectation = block.expect;
  const deadline = Date.now() + (block.retry ? RETRY_FOR_MS : 0);
  for (;;) {
    const result = block.kind === 'server' ? await session.startServer(code) : await session.run(code);
    const problems = result.code !== 0 ? [] : expectation ? outputDifferences(expectation.format, rewrite.apply(expectation.text), result.stdout) : [];
    if (result.code === 0 && problems.length === 0) return null;
    if (Date.now() >= deadline) return describeFailure(block, code, result, problems, session);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

function firstLine(block: RunnableBlock): string {
  return (block.code.split('\n').find((line) => line.trim() !== '' && !line.startsWith('#')) ?? '').slice(0, 70);
}

describe('the guides', () => {
  it('each guide has blocks the test runs, each sample following one', () => {
    for (const file of DOCUMENTS) {
      const guide = parseGuide(fs.readFileSync(path.join(REPO, file), 'utf8'));
      expect(guide.blocks.length, file).toBeGreaterThan(0);
      expect(guide.blocks.filter((block) => block.kind === 'server').length, `${file} starts a server`).toBeGreaterThan(0);
    }
  });
});

for (const database of databases) {
  for (const file of DOCUMENTS) {
    const guide = parseGuide(fs.readFileSync(path.join(REPO, file), 'utf8'));
    const runnable = !guide.needsPostgresAndRedis || (database === 'postgres' && process.env.TEST_REDIS_URL !== undefined);
    describe.skipIf(!runnable)(`${file} on ${database}`, { timeout: 120_000 }, () => {
      let session: ShellSession;
      let rewrite: Rewrite;
      let dropDatabase: (() => Promise<void>) | null = null;
      let failed = false;

      beforeAll(async () => {
        const postgres = database === 'postgres' ? await createPostgresDatabase() : null;
        dropDatabase = postgres?.drop ?? null;
        rewrite = await rewriteFor(guide, postgres?.url ?? null);
        session = new ShellSession({ PORT: String(rewrite.defaultPort), ...(postgres ? { DATABASE_URL: postgres.url } : {}) });
      }, 60_000);
      afterAll(async () => {
        await session?.close();
        await dropDatabase?.();
      }, 60_000);

      for (const block of guide.blocks) {
        it(`line ${block.line}: ${firstLine(block)}`, async (context) => {
          if (failed) context.skip();
          const failure = await runBlock(session, block, rewrite);
          failed = failure !== null;
          expect(failure).toBeNull();
        });
      }
    });
  }
}
