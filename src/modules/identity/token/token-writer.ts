import type { Executor } from '../../../storage/database.js';
import { type AccessTokenRow, createGrantsStore } from '../grants.store.js';

/** Rows per INSERT: 11 columns x 200 stays far below SQLite's and PostgreSQL's parameter limits. */
const MAX_BATCH = 200;

/**
 * Group commit for bot tokens: rows submitted during one turn of the event loop are written by one
 * multi-row INSERT, so a burst of N client_credentials grants costs one commit, not N (a commit is
 * most of an insert's cost on SQLite). Each caller resolves once its row is committed. If a batch
 * fails, its rows are retried one by one, so an error reaches only the request that caused it.
 */
export function createTokenWriter(db: Executor) {
  const store = createGrantsStore(db);
  let queue: Array<{ row: AccessTokenRow; resolve: () => void; reject: (error: unknown) => void }> = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        await store.insertAccessTokens(batch.map((item) => item.row));
        for (const item of batch) item.resolve();
      } catch {
        for (const item of batch) await store.insertAccessToken(item.row).then(item.resolve, item.reject);
      }
    }
  }

  return {
    write(row: AccessTokenRow): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}

export type TokenWriter = ReturnType<typeof createTokenWriter>;
