/**
 * Group commit: writes submitted during one turn of the event loop run together in one transaction,
 * so a burst of N concurrent creates costs one commit instead of N. Each caller still gets its own
 * outcome. If a whole batch fails (the transaction rolled back), its items are retried one by one,
 * so an unexpected error reaches only the request that caused it.
 */
export interface GroupCommitOptions {
  /** Most items in one transaction; bounds the latency a batch adds. */
  maxBatch: number;
  /** Batches allowed in flight at once (1 for SQLite's single connection). */
  maxInFlight: number;
}

interface Pending<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
}

export function createGroupCommit<I, O>(run: (items: I[]) => Promise<O[]>, options: GroupCommitOptions): GroupCommit<I, O> {
  let queue: Pending<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function runBatch(batch: Pending<I, O>[]): Promise<void> {
    try {
      const outcomes = await run(batch.map((pending) => pending.item));
      batch.forEach((pending, index) => pending.resolve(outcomes[index] as O));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const pending of batch) await runBatch([pending]);
    }
  }

  function flush(): void {
    scheduled = false;
    while (queue.length > 0 && inFlight < options.maxInFlight) {
      const batch = queue.length <= options.maxBatch ? queue : queue.slice(0, options.maxBatch);
      queue = queue.length <= options.maxBatch ? [] : queue.slice(options.maxBatch);
      inFlight += 1;
      void runBatch(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    // setImmediate runs after the poll phase: every request parsed in this turn is queued by then.
    setImmediate(flush);
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
