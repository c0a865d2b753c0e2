import type { MessagesMode } from './privacy.types.js';

/** The `parley users` commands, listed by `parley help`. */
export const USERS_COMMANDS: readonly { usage: string; summary: string }[] = [
  {
    usage: 'users erase USER_ID [--messages delete|anonymise]',
    summary: "erase a user and their data (messages deleted by default, or kept under 'erased-user')",
  },
  { usage: 'users export USER_ID', summary: 'print everything held about a user as one JSON document (> file.json)' },
];

export interface UsersCommand {
  action: 'erase' | 'export';
  userId: string;
  mode: MessagesMode;
}

/** Reads `users <action> USER_ID [--messages MODE]`; answers the problem as a usage message when it is wrong. */
export function parseUsersCommand(args: string[], optionOf: (args: string[], name: string) => string | undefined): UsersCommand | string {
  const [action, userId] = args;
  if (action !== 'erase' && action !== 'export') {
    return action === undefined
      ? 'users needs an action: create-admin, erase or export'
      : `unknown users action '${action}': use create-admin, erase or export`;
  }
  if (userId === undefined || userId.startsWith('--')) return `users ${action} needs the user id: parley users ${action} USER_ID`;
  const mode = optionOf(args, 'messages') ?? 'delete';
  if (mode !== 'delete' && mode !== 'anonymise') return `--messages must be delete or anonymise (got '${mode}')`;
  if (action === 'export' && args.includes('--messages')) return 'users export takes no --messages';
  return { action, userId, mode };
}
