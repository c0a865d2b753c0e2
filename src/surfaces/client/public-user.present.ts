import { type Static, Type } from '@sinclair/typebox';
import type { UserRow } from '../../modules/users/users.types.js';

/**
 * The authors of a client answer as other members may see them. The admin API's user record carries
 * email, roles, flags and ban state, which are the operator's business, not every channel member's.
 */
export const PublicUserRecord = Type.Object(
  {
    userId: Type.String(),
    displayName: Type.String({ description: "'' when the user has none" }),
    avatar: Type.String({ description: "The avatar's file id, served at /file/view/<avatar>; '' when none" }),
    isBot: Type.Boolean({ description: 'Whether the author is a bot' }),
  },
  {
    description: 'A user as other members see them',
    examples: [{ userId: 'alice', displayName: 'Alice Martin', avatar: '67d3f5a5e4b0a1c2d3e4f520', isBot: false }],
  },
);
export type PublicUserRecord = Static<typeof PublicUserRecord>;

export function presentPublicUser(row: UserRow): PublicUserRecord {
  return { userId: row.id, displayName: row.display_name ?? '', avatar: row.avatar ?? '', isBot: row.kind === 'bot' };
}
