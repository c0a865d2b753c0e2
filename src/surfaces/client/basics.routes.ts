import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { AppError, notFound } from '../../http/errors.js';
import { ChannelIdParams, Segment } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Executor } from '../../storage/database.js';
import { presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import type { SendRules } from '../../modules/messages/send-rules.js';
import { presentUser } from '../../modules/users/users.present.js';
import { createUsersStore } from '../../modules/users/users.store.js';
import { createClientStore } from '../../modules/client/client.store.js';

const tag = { tags: ['client'] };

/** The caller's own profile and channels: what an end-user app shows first. */
export function registerClientBasicsRoutes(app: TypedApp, deps: { db: Executor; clock: Clock; sendRules: SendRules }): void {
  const store = createClientStore(deps.db);
  const users = createUsersStore(deps.db);

  app.get('/me', { schema: { ...tag, summary: "The caller's profile" } }, async (request) => {
    const user = await users.findById(principalOf(request).userId);
    if (!user) throw notFound('User');
    return presentUser(user);
  });

  app.get(
    '/channels',
    {
      schema: {
        ...tag,
        summary: "The caller's channels with unread counts",
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
      },
    },
    async (request) => {
      const now = deps.clock.now();
      const rows = await store.channelsOf(principalOf(request).userId, request.query.limit ?? 100);
      return {
        channels: rows.map(({ channel, member }) => ({
          channel: presentChannel(channel, now),
          channelUser: presentChannelUser(member, now),
          // Segments have no gaps, so what is unread is the distance from the marker to the end.
          unreadCount: Math.max(0, channel.last_segment - member.read_to_segment),
        })),
      };
    },
  );

  app.post(
    '/channels/:channelId/read',
    {
      schema: {
        ...tag,
        summary: "Move the caller's read marker forward",
        params: ChannelIdParams,
        body: Type.Object({ segment: Segment }),
      },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      // As for reading its messages: a missing channel is 404, a ban 400304, no membership 400301.
      const { channel } = await deps.sendRules.requireReader(userId, request.params.channelId);
      // Never past the last message: a marker ahead of the channel would count its next messages read.
      const segment = Math.min(request.body.segment, channel.last_segment);
      const readTo = await store.advanceReadMarker(request.params.channelId, userId, segment, deps.clock.now());
      if (readTo === null) throw new AppError('permissionDenied', 'Not a member of the channel.');
      return { status: 'success' as const, readToSegment: readTo };
    },
  );
}
