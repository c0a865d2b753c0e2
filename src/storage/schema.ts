import type { UsersTable, UserFlagsTable, TokensTable, RolesTable } from './schema/people.js';
import type { ChannelsTable, ChannelTagsTable, ChannelMembersTable } from './schema/channels.js';
import type {
  MessagesTable,
  MessageTagsTable,
  MessageReactionsTable,
  MessageReactionCountsTable,
  MessageFlagsTable,
  ModerationRulesTable,
  WebhookDeliveriesTable,
  ChannelRetentionTable,
} from './schema/messages.js';
import type {
  OAuthClientsTable,
  BotsTable,
  AuthorizationCodesTable,
  RefreshTokensTable,
  LoginSessionsTable,
  LoginFailuresTable,
  AvatarsTable,
} from './schema/identity.js';
import type {
  CommunitiesTable,
  CommunityMembersTable,
  PostsTable,
  CommentsTable,
  PostReactionsTable,
  ActivityClockTable,
  TrayRecordsTable,
  TrayActorsTable,
  TrayContributionsTable,
  TrayReadsTable,
  TrayStateTable,
} from './schema/social.js';
import type { OutboxTable, OutboxConsumersTable, SettingsTable } from './schema/system.js';
import type { AuditLogTable, AuditTargetsTable } from './schema/audit.js';

export type { UsersTable, UserFlagsTable, TokensTable, RolesTable } from './schema/people.js';
export type { ChannelsTable, ChannelTagsTable, ChannelMembersTable } from './schema/channels.js';
export type {
  MessagesTable,
  MessageTagsTable,
  MessageReactionsTable,
  MessageReactionCountsTable,
  MessageFlagsTable,
  ModerationRulesTable,
  WebhookDeliveriesTable,
  ChannelRetentionTable,
} from './schema/messages.js';
export type {
  OAuthClientsTable,
  BotsTable,
  AuthorizationCodesTable,
  RefreshTokensTable,
  LoginSessionsTable,
  LoginFailuresTable,
  AvatarsTable,
} from './schema/identity.js';
export type {
  CommunitiesTable,
  CommunityMembersTable,
  PostsTable,
  CommentsTable,
  PostReactionsTable,
  ActivityClockTable,
  TrayRecordsTable,
  TrayActorsTable,
  TrayContributionsTable,
  TrayReadsTable,
  TrayStateTable,
} from './schema/social.js';
export type { OutboxTable, OutboxConsumersTable, SettingsTable } from './schema/system.js';
export type { AuditLogTable, AuditTargetsTable } from './schema/audit.js';

/**
 * Table shapes shared by SQLite and PostgreSQL. Dialect-neutral on purpose: times are integer
 * milliseconds, booleans are 0/1 integers, JSON is text. Stores parse JSON; presenters shape output.
 */
export interface Database {
  users: UsersTable;
  user_flags: UserFlagsTable;
  tokens: TokensTable;
  roles: RolesTable;
  channels: ChannelsTable;
  channel_tags: ChannelTagsTable;
  channel_members: ChannelMembersTable;
  messages: MessagesTable;
  message_tags: MessageTagsTable;
  message_reactions: MessageReactionsTable;
  message_reaction_counts: MessageReactionCountsTable;
  message_flags: MessageFlagsTable;
  settings: SettingsTable;
  moderation_rules: ModerationRulesTable;
  oauth_clients: OAuthClientsTable;
  bots: BotsTable;
  authorization_codes: AuthorizationCodesTable;
  refresh_tokens: RefreshTokensTable;
  login_sessions: LoginSessionsTable;
  login_failures: LoginFailuresTable;
  avatars: AvatarsTable;
  outbox: OutboxTable;
  outbox_consumers: OutboxConsumersTable;
  communities: CommunitiesTable;
  community_members: CommunityMembersTable;
  posts: PostsTable;
  comments: CommentsTable;
  post_reactions: PostReactionsTable;
  activity_clock: ActivityClockTable;
  tray_records: TrayRecordsTable;
  tray_actors: TrayActorsTable;
  tray_contributions: TrayContributionsTable;
  tray_reads: TrayReadsTable;
  tray_state: TrayStateTable;
  webhook_deliveries: WebhookDeliveriesTable;
  audit_log: AuditLogTable;
  audit_targets: AuditTargetsTable;
  channel_retention: ChannelRetentionTable;
}
