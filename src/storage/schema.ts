import type * as people from './schema/people.js';
import type * as channels from './schema/channels.js';
import type * as messages from './schema/messages.js';
import type * as identity from './schema/identity.js';
import type * as social from './schema/social.js';
import type * as system from './schema/system.js';
import type * as audit from './schema/audit.js';
import type * as stats from './schema/stats.js';

// Every table's row type, for stores and presenters: `import type { MessagesTable } from '../storage/schema.js'`.
export type * from './schema/people.js';
export type * from './schema/channels.js';
export type * from './schema/messages.js';
export type * from './schema/identity.js';
export type * from './schema/social.js';
export type * from './schema/system.js';
export type * from './schema/audit.js';
export type * from './schema/stats.js';

/**
 * Table shapes shared by SQLite and PostgreSQL. Dialect-neutral on purpose: times are integer
 * milliseconds, booleans are 0/1 integers, JSON is text. Stores parse JSON; presenters shape output.
 */
export interface Database {
  users: people.UsersTable;
  user_flags: people.UserFlagsTable;
  ban_lifts: people.BanLiftsTable;
  erasures: people.ErasuresTable;
  tokens: people.TokensTable;
  roles: people.RolesTable;
  channels: channels.ChannelsTable;
  channel_tags: channels.ChannelTagsTable;
  channel_members: channels.ChannelMembersTable;
  messages: messages.MessagesTable;
  message_tags: messages.MessageTagsTable;
  message_reactions: messages.MessageReactionsTable;
  message_reaction_counts: messages.MessageReactionCountsTable;
  message_flags: messages.MessageFlagsTable;
  settings: system.SettingsTable;
  moderation_rules: messages.ModerationRulesTable;
  moderation_reviews: messages.ModerationReviewsTable;
  oauth_clients: identity.OAuthClientsTable;
  bots: identity.BotsTable;
  authorization_codes: identity.AuthorizationCodesTable;
  refresh_tokens: identity.RefreshTokensTable;
  login_sessions: identity.LoginSessionsTable;
  login_failures: identity.LoginFailuresTable;
  password_resets: identity.PasswordResetsTable;
  avatars: identity.AvatarsTable;
  outbox: system.OutboxTable;
  outbox_consumers: system.OutboxConsumersTable;
  communities: social.CommunitiesTable;
  community_members: social.CommunityMembersTable;
  posts: social.PostsTable;
  comments: social.CommentsTable;
  post_reactions: social.PostReactionsTable;
  activity_clock: social.ActivityClockTable;
  tray_records: social.TrayRecordsTable;
  tray_actors: social.TrayActorsTable;
  tray_contributions: social.TrayContributionsTable;
  tray_reads: social.TrayReadsTable;
  tray_state: social.TrayStateTable;
  webhook_deliveries: messages.WebhookDeliveriesTable;
  audit_log: audit.AuditLogTable;
  audit_targets: audit.AuditTargetsTable;
  channel_retention: messages.ChannelRetentionTable;
  daily_stats: stats.DailyStatsTable;
  daily_senders: stats.DailySendersTable;
}
