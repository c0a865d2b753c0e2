import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
 * crosses 1000 WAL pages, on the thread that commits: under a sustained message-create load that is a
 * copy of ~4 MB into the database file plus two fsyncs every twenty-odd group commits, 15-30 ms during
 * which no request is served (the message create's p99, and a third of its throughput, went there).
 *
 * Once the WAL shows real write traffic (it passes START_BYTES), a worker thread with its own
 * connection runs PASSIVE checkpoints, every BUSY_INTERVAL_MS while the WAL changes, every
 * IDLE_INTERVAL_MS otherwise. PASSIVE never takes the writer lock, so the main connection keeps
 * committing meanwhile: WAL mode lets a checkpointer and a writer run at once.
 * Under a sustained write load the copy never quite catches up with the writer (a commit lands while
 * it runs), so SQLite cannot restart the WAL from the worker: the WAL grows to the backstop below, whose
 * checkpoint on the main connection then has only the last interval's pages left to copy, and restarts
 * it. The busy interval is a trade: every checkpoint copies each page changed since the last one and
 * syncs both files, and the hottest pages (the channel row, the newest index leaves) change in every
 * commit. Every 10 ms, the copying cost the message create a third of its throughput on a 2-core
 * machine (12,400 against 8,000-11,500 requests/s, alternating runs); 100 and 250 ms measured alike.
 * The main connection's automatic checkpoint stays as a backstop at a larger threshold, and goes back
 * to SQLite's default if the worker cannot run. Durability is unchanged: commits go to the WAL exactly
 * as before, only who copies them into the database file, and when, differs.
 *
 * The backstop is the one place where the event loop waits for the disk under load: its checkpoint
 * syncs the WAL and the database file (3-5 ms here), and the first commit after the restart syncs the new
 * WAL header. Every request in flight waits with it, so how often it fires sets the create's p99. At 4000
 * pages (16 MB) it fired every second or two under the bench's load: p99 12.0 against 10.3 ms at 32768
 * pages (128 MB, one every 15-30 s), and 12.2 against 9.2 ms with the main connection never syncing
 * (measured to find the cause, not an option: it risks corruption on power loss), in alternating rounds.
 * The price is disk: under sustained writes the WAL file grows to 128 MB, and SQLite reuses it rather than
 * shrinking it, and opening the database after a crash reads up to that much to rebuild the WAL index.
 */
const START_BYTES = 1024 * 1024;
const POLL_MS = 250;
const BUSY_INTERVAL_MS = 100;
const IDLE_INTERVAL_MS = 250;
const DEFAULT_AUTOCHECKPOINT = 1000;
const BACKSTOP_AUTOCHECKPOINT = 32768;

// Plain CommonJS evaluated in the worker, so it runs the same under tsx, vitest and compiled builds.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
let timer = null;
let stopped = false;
let last = '';
function tick() {
  let state = last;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result) state = result.log + '/' + result.checkpointed;
  } catch {
    // Busy or shutting down: the next tick tries again.
  }
  // Frequent while the WAL changes, so the copy keeps up with the writer and SQLite can restart the
  // WAL from its beginning (it only does when every frame is copied); slow when idle.
  const changed = state !== last;
  last = state;
  if (!stopped) timer = setTimeout(tick, changed ? workerData.busyMs : workerData.idleMs);
}
tick();
parentPort.once('message', () => {
  stopped = true;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startBackgroundCheckpointer(file: SQLite.Database): Checkpointer {
  const walFile = `${file.name}-wal`;
  let worker: Worker | null = null;
  let workerExited = false;
  let stopped = false;

  const setAutocheckpoint = (pages: number): void => {
    if (!stopped && file.open) file.pragma(`wal_autocheckpoint = ${pages}`);
  };

  function start(): void {
    clearInterval(poll);
    if (stopped || worker) return;
    const started = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file: file.name, busyMs: BUSY_INTERVAL_MS, idleMs: IDLE_INTERVAL_MS },
    });
    worker = started;
    // Never what keeps a process (the CLI, a test) alive.
    started.unref();
    started.on('online', () => setAutocheckpoint(BACKSTOP_AUTOCHECKPOINT));
    // Could not open the database or died: the main connection checkpoints by itself again.
    started.on('error', () => setAutocheckpoint(DEFAULT_AUTOCHECKPOINT));
    started.on('exit', () => {
      workerExited = true;
      if (!stopped) setAutocheckpoint(DEFAULT_AUTOCHECKPOINT);
    });
  }

  // Small or idle databases (tests, the CLI) never start the thread.
  const poll = setInterval(() => {
    fs.stat(walFile, (error, stats) => {
      if (!error && stats.size >= START_BYTES) start();
    });
  }, POLL_MS);
  poll.unref();

  return {
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(poll);
      const running = worker;
      if (!running || workerExited) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.postMessage('stop');
      const timeout = setTimeout(() => void running.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
