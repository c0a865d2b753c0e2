import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { advanceReadMarker } from '../channels/channels.service.js';
import type { SendRules } from '../messages/send-rules.js';
import type { UserRow } from '../users/users.types.js';
import { createInboxStore, type MembershipWithChannel } from './inbox.store.js';

/** What an end-user app shows first: the caller's profile, channels and read markers. */
export function createInboxService(deps: { db: Executor; clock: Clock; sendRules: SendRules; findUser: (userId: string) => Promise<UserRow | undefined> }) {
  const store = createInboxStore(deps.db);
  return {
    async profileOf(actor: { userId: string }): Promise<UserRow> {
      const user = await deps.findUser(actor.userId);
      if (!user) throw notFound('User');
      return user;
    },

    /** The caller's channels, most recently active first. */
    channelsOf(actor: { userId: string }, limit: number): Promise<MembershipWithChannel[]> {
      return store.channelsOf(actor.userId, limit);
    },

    /** Moves the caller's read marker forward, never past the channel's last message; answers the marker in place. */
    async markRead(actor: { userId: string }, channelId: string, segment: number): Promise<number> {
      // As for reading its messages: a missing channel is 404, a ban 400304, no membership 400301.
      const { channel } = await deps.sendRules.requireReader(actor.userId, channelId);
      // A marker ahead of the channel would count its next messages read.
      const readTo = await advanceReadMarker(deps.db, channelId, actor.userId, Math.min(segment, channel.last_segment), deps.clock.now());
      if (readTo === null) throw new AppError('permissionDenied', 'Not a member of the channel.');
      return readTo;
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
