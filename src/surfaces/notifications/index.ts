import { bearerTokenOf } from '../../http/auth.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { TRAY_DISABLED_MESSAGE } from '../../modules/tray/tray.js';
import { AppError } from '../../shared/errors.js';
import { registerTrayRoutes } from './tray.routes.js';

/** The notification tray under /notifications: user tokens; 403 / 400300 while PARLEY_TRAY_ENABLED is off. */
export function notificationsSurface(container: Container) {
  return async function notifications(scope: TypedApp): Promise<void> {
    const { tray } = container;
    scope.addHook('onRequest', async (request) => {
      if (!tray.options.enabled) throw new AppError('forbidden', TRAY_DISABLED_MESSAGE);
      request.principal = await container.authenticateUser(bearerTokenOf(request));
    });
    registerTrayRoutes(scope, { tray: tray.service, limiter: tray.limiter, present: { networkId: tray.options.networkId, publicUrl: tray.options.publicUrl } });
  };
}
