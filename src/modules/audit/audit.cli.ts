import type { Executor } from '../../storage/database.js';
import { createAuditRecorder } from './audit.recorder.js';
import type { AuditTarget } from './audit.types.js';

/**
 * Records an action of the `parley` command under the actor `cli`, and waits for it: unlike a request,
 * the command has no log to keep a lost entry, so a failed write fails the command's exit code.
 */
export async function recordCliAction(db: Executor, at: number, command: string, operation: string, targets: AuditTarget[]): Promise<void> {
  let lost: unknown = null;
  const recorder = createAuditRecorder({
    db,
    adminTokenNames: async () => [],
    onLost: (error) => {
      lost = error;
    },
  });
  recorder.record({ at, actor: { type: 'cli' }, operation, method: 'CLI', route: command, targets, status: 200, errorCode: null, requestId: null });
  await recorder.close();
  if (lost !== null) throw lost;
}
