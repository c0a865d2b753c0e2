import type { ChannelsService } from '../channels/channels.service.js';
import type { MessagesService } from '../messages/messages.service.js';
import type { ReactionsService } from '../reactions/reactions.service.js';
import type { SocialService } from '../social/social.service.js';
import type { UsersService } from '../users/users.service.js';

/** The author erased users' messages are given, in anonymise mode and on the tombstones of delete mode. */
export const ERASED_USER_ID = 'erased-user';

/** The name an erased user's contributions show where a name was copied (tray records, social events). */
export const ERASED_USER_NAME = 'Erased user';

/** What erasure does with the user's messages: delete them (every copy redacted) or keep their text under the placeholder. */
export type MessagesMode = 'delete' | 'anonymise';

/** The other modules' services erasure removes things through. */
export interface ErasureServices {
  users: Pick<UsersService, 'findById'>;
  reactions: Pick<ReactionsService, 'remove'>;
  social: Pick<SocialService, 'removeReaction' | 'deleteComment' | 'deletePost' | 'leave'>;
  channels: Pick<ChannelsService, 'removeUsers'>;
  messages: Pick<MessagesService, 'sweepDeletedMedia'>;
}
