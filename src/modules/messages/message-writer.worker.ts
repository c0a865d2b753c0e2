import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { WriterReply, WriterRequest } from './message-writer.js';
import { createSqliteMessageBatch } from './messages.sqlite.js';

/**
 * The message writer thread (message-writer.ts): its own connection to the server's SQLite file,
 * set up like the main one (storage/database.ts), running one batch per request it receives.
 */
const port = parentPort;
if (port === null) throw new Error('message-writer.worker.ts runs as a worker thread only.');
const { file } = workerData as { file: string };
const db = new SQLite(file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
const insertBatch = createSqliteMessageBatch(db);

const reply = (message: WriterReply): void => port.postMessage(message);
port.on('message', (request: WriterRequest) => {
  if (request === 'stop') {
    db.close();
    port.close();
    return;
  }
  try {
    reply({ kind: 'done', id: request.id, result: insertBatch(request.drafts) });
  } catch (error) {
    // The transaction rolled back; the caller retries the batch's drafts one by one.
    reply({ kind: 'failed', id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
reply({ kind: 'ready' });
