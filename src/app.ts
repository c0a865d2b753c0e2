import { fileURLToPath } from 'node:url';
import type { AdjustableClock } from './clock.js';
import type { Config } from './config.js';
import { buildContainer, type ContainerOptions } from './container.js';
import type { EventSystem } from './events/index.js';
import { createServer, type RegisteredRoute } from './http/server.js';
import type { TypedApp } from './http/typed-app.js';
import type { WebhooksService } from './modules/webhooks/webhooks.service.js';
import type { Storage } from './storage/database.js';
import { adminSurface } from './surfaces/admin/index.js';
import { botSurface } from './surfaces/bot/index.js';
import { clientSurface } from './surfaces/client/index.js';
import { consoleSurface } from './surfaces/console/index.js';
import { notificationsSurface } from './surfaces/notifications/index.js';
import { opsSurface } from './surfaces/ops/index.js';
import { signInSurface } from './surfaces/signin/index.js';
import { streamSurface } from './surfaces/stream/index.js';

export type { RegisteredRoute };

export interface BuiltApp {
  app: TypedApp;
  storage: Storage;
  clock: AdjustableClock;
  config: Config;
  events: EventSystem;
  routes: readonly RegisteredRoute[];
  /** Bot webhook deliveries (scheduled by the 'webhooks' outbox consumer, sent by this instance's loop). */
  webhooks: WebhooksService;
}

export interface BuildOptions extends ContainerOptions {
  /** Where JSON log lines go instead of stdout (tests read the log this way). */
  logStream?: { write(line: string): void };
  /** The admin console's build, served at /console; default packages/console/dist of this checkout. */
  consoleDir?: string;
}

/** Where `npm run console:build` writes the console. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../packages/console/dist', import.meta.url));

/** The server: the object graph built once, and each URL surface mounted on it. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  const { app, routes } = await createServer(config, options.logStream);
  const container = await buildContainer(config, app.log, options);
  // The admin API's actor (http/admin-actor.ts): a console user's, set by the admin surface's authentication.
  app.decorateRequest('adminActor', null);
  await opsSurface(container)(app);
  await app.register(signInSurface(container));
  await app.register(streamSurface(container));
  await app.register(adminSurface(container), { prefix: '/api/v2' });
  await app.register(clientSurface(container), { prefix: '/client/v1' });
  await app.register(botSurface(container), { prefix: '/bot/v1' });
  await app.register(notificationsSurface(container), { prefix: '/notifications' });
  await app.register(consoleSurface({ dir: options.consoleDir ?? DEFAULT_CONSOLE_DIR, basePath: container.identity.basePath }));
  app.addHook('preClose', async () => container.gateway.close());
  app.addHook('onClose', async () => container.close());
  const { storage, clock, events, webhooks } = container;
  return { app, storage, clock, config, events, routes, webhooks };
}
