/**
 * Clean-ups for an interrupted bench (Ctrl-C, SIGTERM). The suites' `finally` blocks do not run when
 * the process is stopped by a signal, so whatever would outlive it (server processes, their data
 * dirs, a git worktree) registers a clean-up here as well, and removes it once it has been cleaned up
 * the ordinary way.
 *
 * The clean-ups run asynchronously, and a repeated signal is ignored while they do: `npm run bench`
 * runs this file under tsx, whose parent process sends the signal on to this one and kills it
 * outright when it does not answer within tens of milliseconds, which a blocked event loop would not.
 */
type Cleanup = () => void | Promise<void>;

const cleanups = new Set<Cleanup>();
let listening = false;
let interrupted = false;

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** Registers `cleanup` to run on SIGINT / SIGTERM; answers the function that unregisters it. */
export function onInterrupt(cleanup: Cleanup): () => void {
  listenOnce();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

function listenOnce(): void {
  if (listening) return;
  listening = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      void runCleanups().finally(() => process.exit(EXIT_CODES[signal]));
    });
  }
}

/** Latest first: servers started in a worktree stop before the worktree is removed. */
async function runCleanups(): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      await cleanup();
    } catch (error) {
      process.stderr.write(`bench: clean-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}
