import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { Executor } from '../../storage/database.js';
import { type BatchResult, createSqliteMessageBatch, outcomesOf } from './messages.sqlite.js';
import type { CreateOutcome, MessageDraft } from './messages.store.js';

/**
 * Where the SQLite message batches run. On one core, a message create spent about a fifth of its
 * time inside the batch transaction (statements, index updates, the WAL write), time during which the
 * event loop parsed, checked and answered nothing. A writer thread with its own connection to the same
 * file takes that work to another core: the event loop hands it a batch and goes on serving requests.
 *
 * Every batch still runs while this process holds Kysely's one connection (db.connection()), so no
 * other statement of the process, on either connection, runs meanwhile: writes stay strictly one at
 * a time as before, nothing ever waits on SQLite's lock (a busy wait would block the event loop), and
 * a transaction on the main connection never finds its snapshot overtaken by the thread's commit.
 * Reads on the main connection wait for the batch too; a batch takes a millisecond or two.
 *
 * Until the thread is up (it starts on the first batch, so apps that never create a message never
 * start it), after it fails, or where there is no file to share (an in-memory database), batches run
 * on the event loop's own connection: the same code, the same answers.
 */
export interface MessageWriter {
  insertBatch(drafts: MessageDraft[]): Promise<CreateOutcome[]>;
  /** Whether batches run on the writer thread now (the metric parley_sqlite_writer_thread). */
  readonly onThread: boolean;
  close(): Promise<void>;
}

/** What the thread sends back (message-writer.worker.ts). */
export type WriterReply = { kind: 'ready' } | { kind: 'done'; id: number; result: BatchResult } | { kind: 'failed'; id: number; error: string };

/** The thread's request: a batch, or the word to close its connection and end. */
export type WriterRequest = { id: number; drafts: MessageDraft[] } | 'stop';

interface WriterThread {
  readonly ready: boolean;
  run(drafts: MessageDraft[]): Promise<BatchResult>;
  stop(): Promise<void>;
}

// A plain ESM entry that loads the TypeScript worker, so the thread starts the same under tsx and vitest.
const THREAD_ENTRY = new URL('./message-writer.thread.mjs', import.meta.url);

function startWriterThread(file: string, entry: URL): WriterThread {
  const worker = new Worker(entry, { workerData: { file } });
  // Never what keeps a process (the CLI, a test) alive.
  worker.unref();
  const pending = new Map<number, { resolve(result: BatchResult): void; reject(error: Error): void }>();
  let ready = false;
  let ended = false;
  let nextId = 0;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  const fail = (error: Error): void => {
    ready = false;
    ended = true;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on('message', (reply: WriterReply) => {
    if (reply.kind === 'ready') {
      ready = !ended;
      return;
    }
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.kind === 'done') waiter?.resolve(reply.result);
    else waiter?.reject(new Error(reply.error));
  });
  // Could not open the database, or died: the batches in flight fail (the group commit retries them
  // one by one, then on the event loop's connection), and later ones never come here.
  worker.on('error', (error) => fail(error));
  worker.on('exit', () => fail(new Error('The message writer thread has ended.')));

  return {
    get ready() {
      return ready;
    },
    run(drafts) {
      return new Promise((resolve, reject) => {
        const id = nextId;
        nextId += 1;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, drafts } satisfies WriterRequest);
      });
    },
    async stop() {
      if (ended) return;
      ready = false;
      worker.postMessage('stop' satisfies WriterRequest);
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

export function createSqliteMessageWriter(
  db: Executor,
  sqlite: SQLite.Database,
  options: {
    thread: boolean;
    /** The thread's entry module; tests give one that fails on purpose. */
    threadEntry?: URL;
  },
): MessageWriter {
  const onEventLoop = createSqliteMessageBatch(sqlite);
  let thread: WriterThread | null = null;
  let closed = false;
  const canThread = options.thread && !sqlite.memory;

  return {
    insertBatch(drafts) {
      if (canThread && thread === null && !closed) thread = startWriterThread(sqlite.name, options.threadEntry ?? THREAD_ENTRY);
      return db.connection().execute(async () => {
        const result = thread?.ready ? await thread.run(drafts) : onEventLoop(drafts);
        return outcomesOf(drafts, result);
      });
    },
    get onThread() {
      return thread?.ready ?? false;
    },
    async close() {
      closed = true;
      await thread?.stop();
    },
  };
}
