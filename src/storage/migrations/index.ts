import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.js';
import * as outbox from './0002_outbox.js';
import * as messages from './0003_messages.js';
import * as identity from './0004_identity.js';
import * as moderation from './0005_moderation.js';
import * as socialTray from './0006_social_tray.js';
import * as webhooks from './0007_webhooks.js';
import * as reactions from './0008_reactions.js';
import * as blobReferences from './0010_blob_references.js';
import * as topics from './0009_topics.js';
import * as partialIndexes from './0011_partial_indexes.js';
import * as reactionsOrder from './0012_reactions_order.js';
import * as memberAddedIndex from './0013_member_added_index.js';
import * as signinLogoutReuse from './0014_signin_logout_reuse.js';
import * as messageRedaction from './0015_message_redaction.js';
import * as revocation from './0016_revocation.js';
import * as audit from './0017_audit.js';
import * as messageRetention from './0018_message_retention.js';
import * as moderationReviews from './0019_moderation_reviews.js';
import * as banLifts from './0020_ban_lifts.js';
import * as erasures from './0021_erasures.js';
import * as channelJoinable from './0022_channel_joinable.js';
import * as dailyStats from './0023_daily_stats.js';
import * as passwordResets from './0024_password_resets.js';

/**
 * Every migration, in order of name. One set serves SQLite and PostgreSQL; a
 * change to the schema adds a file here rather than editing an applied one.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_outbox': outbox,
  '0003_messages': messages,
  '0004_identity': identity,
  '0005_moderation': moderation,
  '0006_social_tray': socialTray,
  '0007_webhooks': webhooks,
  '0008_reactions': reactions,
  '0009_topics': topics,
  '0010_blob_references': blobReferences,
  '0011_partial_indexes': partialIndexes,
  '0012_reactions_order': reactionsOrder,
  '0013_member_added_index': memberAddedIndex,
  '0014_signin_logout_reuse': signinLogoutReuse,
  '0015_message_redaction': messageRedaction,
  '0016_revocation': revocation,
  '0017_audit': audit,
  '0018_message_retention': messageRetention,
  '0019_moderation_reviews': moderationReviews,
  '0020_ban_lifts': banLifts,
  '0021_erasures': erasures,
  '0022_channel_joinable': channelJoinable,
  '0023_daily_stats': dailyStats,
  '0024_password_resets': passwordResets,
};
