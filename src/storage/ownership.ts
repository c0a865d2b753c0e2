import type { Database } from './schema.js';

/**
 * One owner per table: only the owner's store files write it, and every other module goes through the
 * owner's service (docs/architecture.md, "Storage"). `npm run owners` (scripts/check-table-owners.ts)
 * reads every write in src/ and fails on one from anywhere else. Nothing imports this at run time.
 */
export interface TableOwner {
  /** The owner's folder, from the repository root. */
  readonly folder: string;
  /** Files of the folder that write its tables besides its `*.store.ts` files (raw-statement writers). */
  readonly storeFiles?: readonly string[];
}

export const OWNERS = {
  audit: { folder: 'src/modules/audit' },
  bans: { folder: 'src/modules/bans' },
  channels: { folder: 'src/modules/channels' },
  flags: { folder: 'src/modules/flags' },
  events: { folder: 'src/events', storeFiles: ['outbox.ts', 'consumers.ts', 'outbox-rewrite.ts'] },
  identity: { folder: 'src/modules/identity' },
  messages: { folder: 'src/modules/messages', storeFiles: ['messages.sqlite.ts', 'messages.postgres.ts'] },
  'moderation-rules': { folder: 'src/modules/moderation-rules' },
  'moderation-queue': { folder: 'src/modules/moderation-queue' },
  privacy: { folder: 'src/modules/privacy' },
  reactions: { folder: 'src/modules/reactions' },
  roles: { folder: 'src/modules/roles' },
  social: { folder: 'src/modules/social' },
  stats: { folder: 'src/modules/stats' },
  storage: { folder: 'src/storage', storeFiles: ['settings.ts'] },
  tokens: { folder: 'src/modules/tokens' },
  tray: { folder: 'src/modules/tray' },
  users: { folder: 'src/modules/users' },
  webhooks: { folder: 'src/modules/webhooks' },
} as const satisfies Record<string, TableOwner>;

export type OwnerName = keyof typeof OWNERS;

/** Every table of the schema and its owner; a table added to `Database` without an owner fails to compile. */
export const TABLE_OWNERS: { readonly [Table in keyof Database]: OwnerName } = {
  users: 'users',
  user_flags: 'users',
  ban_lifts: 'bans',
  erasures: 'privacy',
  tokens: 'tokens',
  roles: 'roles',
  channels: 'channels',
  channel_tags: 'channels',
  channel_members: 'channels',
  messages: 'messages',
  message_tags: 'messages',
  channel_retention: 'messages',
  message_reactions: 'reactions',
  message_reaction_counts: 'reactions',
  message_flags: 'flags',
  settings: 'storage',
  moderation_rules: 'moderation-rules',
  moderation_reviews: 'moderation-queue',
  oauth_clients: 'identity',
  bots: 'identity',
  authorization_codes: 'identity',
  refresh_tokens: 'identity',
  login_sessions: 'identity',
  login_failures: 'identity',
  password_resets: 'identity',
  avatars: 'identity',
  outbox: 'events',
  outbox_consumers: 'events',
  communities: 'social',
  community_members: 'social',
  posts: 'social',
  comments: 'social',
  post_reactions: 'social',
  activity_clock: 'social',
  tray_records: 'tray',
  tray_actors: 'tray',
  tray_contributions: 'tray',
  tray_reads: 'tray',
  tray_state: 'tray',
  webhook_deliveries: 'webhooks',
  audit_log: 'audit',
  audit_targets: 'audit',
  daily_stats: 'stats',
  daily_senders: 'stats',
};
