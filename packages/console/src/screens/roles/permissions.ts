/** What each permission of the server's catalogue lets a role's holder do, in words for the Roles grid. */
const LABELS: Readonly<Record<string, string>> = {
  MUTE_CHANNEL: 'Mute channels',
  CLOSE_CHANNEL: 'Close channels',
  EDIT_CHANNEL: 'Edit channels',
  ADD_CHANNEL_USER: 'Add channel members',
  REMOVE_CHANNEL_USER: 'Remove channel members',
  BAN_USER_FROM_CHANNEL: 'Ban users from a channel',
  MUTE_USER_INSIDE_CHANNEL: 'Mute users in a channel',
  DELETE_MESSAGE: 'Delete messages',
  BAN_USER: 'Ban users globally',
  EDIT_USER: 'Edit users',
};

/** "DELETE_MESSAGE" -> "Delete messages"; a permission the console does not know yet: "SOME_RIGHT" -> "Some right". */
export function permissionLabel(permission: string): string {
  return LABELS[permission] ?? permission.charAt(0) + permission.slice(1).toLowerCase().replaceAll('_', ' ');
}
