import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { registerBotRoutes } from './bot.routes.js';

/** The bot API under /bot/v1 (docs/contract.md, Bot API): bot tokens only, a per-bot rate limit counted in Redis when set. */
export function botSurface(container: Container) {
  return async function bot(scope: TypedApp): Promise<void> {
    const { config } = container;
    registerBotRoutes(scope, {
      bots: container.bots,
      authenticate: container.authenticateBot,
      rate: { limiter: container.botRateLimiter, limit: config.botRateLimit, windowMs: config.botRateWindowMs },
    });
  };
}
