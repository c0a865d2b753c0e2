import type { Session } from './session.js';

/** The rights that open the moderation queue. */
export const QUEUE_PERMISSIONS = ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'] as const;

export type ScreenId = 'queue' | 'users' | 'channels' | 'rules' | 'roles' | 'apps' | 'overview' | 'tray' | 'audit' | 'sessions';

export interface ScreenEntry {
  id: ScreenId;
  label: string;
  path: string;
}

/** The screens in navbar order. */
export const SCREENS: ScreenEntry[] = [
  { id: 'queue', label: 'Queue', path: '/queue' },
  { id: 'users', label: 'Users', path: '/users' },
  { id: 'channels', label: 'Channels', path: '/channels' },
  { id: 'rules', label: 'Rules', path: '/rules' },
  { id: 'roles', label: 'Roles', path: '/roles' },
  { id: 'apps', label: 'Apps', path: '/apps' },
  { id: 'overview', label: 'Overview', path: '/overview' },
  { id: 'tray', label: 'Tray inspector', path: '/tray' },
  { id: 'audit', label: 'Audit trail', path: '/audit' },
  { id: 'sessions', label: 'Sessions', path: '/sessions' },
];

/** Whether the person may open a screen (the contract's table of rights). */
export function maySee(session: Pick<Session, 'can' | 'isNetworkAdmin'>, screen: ScreenId): boolean {
  const moderates = QUEUE_PERMISSIONS.some((permission) => session.can(permission));
  switch (screen) {
    case 'queue':
      return moderates;
    case 'users':
      return session.can('EDIT_USER');
    case 'channels':
      return moderates || session.can('EDIT_CHANNEL');
    default:
      return session.isNetworkAdmin;
  }
}

/** Where `/` leads: the overview for network admins, the queue for moderators, else the first screen allowed. */
export function homePath(session: Pick<Session, 'can' | 'isNetworkAdmin'>): string | null {
  if (session.isNetworkAdmin) return '/overview';
  if (maySee(session, 'queue')) return '/queue';
  return SCREENS.find((screen) => maySee(session, screen.id))?.path ?? null;
}
