import type { Clock } from '../../clock.js';
import type { Notices } from '../../events/notices.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { createErasureService } from './erasure.service.js';
import { createExportService } from './export.service.js';
import type { ErasureServices } from './privacy.types.js';

/** A user's data rights: erasure (GDPR article 17) and export (article 20). */
export function createPrivacy(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  blobs: BlobStore;
  notices: Pick<Notices, 'publish'>;
  services: ErasureServices;
}) {
  return {
    erasure: createErasureService(deps),
    exports: createExportService({ db: deps.db, clock: deps.clock, findUser: (userId) => deps.services.users.findById(userId) }),
  };
}

export type Privacy = ReturnType<typeof createPrivacy>;
