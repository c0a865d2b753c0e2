import { createErasureService, type PrivacyDeps } from './erasure.service.js';
import { createExportService } from './export.service.js';

/** A user's data rights: erasure (GDPR article 17) and export (article 20). */
export function createPrivacy(deps: PrivacyDeps) {
  return {
    erasure: createErasureService(deps),
    exports: createExportService({ db: deps.db, clock: deps.clock, findUser: (userId) => deps.services.users.findById(userId) }),
  };
}

export type Privacy = ReturnType<typeof createPrivacy>;
