/**
 * The closed catalogue of permissions Parley enforces for moderators in the client API. The contract
 * predefines none (docs/contract.md, Admin API); these name each moderation action a channel admin can delegate.
 */
export const PERMISSIONS = [
  'MUTE_CHANNEL',
  'CLOSE_CHANNEL',
  'EDIT_CHANNEL',
  'ADD_CHANNEL_USER',
  'REMOVE_CHANNEL_USER',
  'BAN_USER_FROM_CHANNEL',
  'MUTE_USER_INSIDE_CHANNEL',
  'DELETE_MESSAGE',
  'BAN_USER',
  'EDIT_USER',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const isPermission = (name: string): name is Permission => (PERMISSIONS as readonly string[]).includes(name);
