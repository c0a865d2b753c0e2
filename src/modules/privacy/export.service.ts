import type { Clock } from '../../clock.js';
import { notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { iso, parseJson } from '../../shared/values.js';
import { presentMessage } from '../messages/messages.present.js';
import { presentReview } from '../moderation-queue/queue.present.js';
import type { ReviewRow } from '../moderation-queue/queue.types.js';
import { presentComment, presentPost, presentPostReaction } from '../social/social.present.js';
import type { UserRow } from '../users/users.types.js';
import { presentUser } from '../users/users.present.js';
import { createExportStore, type ExportStore } from './export.store.js';

/** Rows read per query: the document is written as it is read, never held whole. */
const PAGE = 500;

/** The first version of the document's shape, named in it so readers can tell later ones apart. */
export const EXPORT_FORMAT = 'parley.user-export/1';

/**
 * One JSON array's text, a page at a time: `read(after)` answers a page in key order and `key`
 * gives the position of a row. Each yielded chunk is whole JSON values with commas, so a reader may
 * put whitespace between chunks.
 */
async function* jsonArray<R, K>(read: (after: K) => Promise<R[]>, start: K, key: (row: R) => K, present: (row: R) => unknown): AsyncGenerator<string> {
  yield '[';
  let after = start;
  let first = true;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) {
      yield (first ? '' : ',') + rows.map((row) => JSON.stringify(present(row))).join(',');
      first = false;
      after = key(rows[rows.length - 1] as R);
    }
    if (rows.length < PAGE) break;
  }
  yield ']';
}

/**
 * A review about the user as the moderation queue lists it, less who flagged and who reviewed: those
 * are other people, and a reported person learns what was decided and why, not who reported them.
 */
function presentReviewAbout(row: ReviewRow) {
  const review = presentReview(row);
  return {
    reviewId: review.reviewId,
    targetType: review.targetType,
    targetId: review.targetId,
    channelId: review.channelId,
    decision: review.decision,
    authorAction: review.authorAction,
    note: review.note,
    message: review.message,
    flags: review.flags.map((flag) => ({ reason: flag.reason, createdAt: flag.createdAt })),
    createdAt: review.createdAt,
  };
}

/** The sections of the document after the profile, each a paged array. */
function sections(store: ExportStore, userId: string): Array<[string, () => AsyncGenerator<string>]> {
  return [
    [
      'channelMemberships',
      () =>
        jsonArray(
          (after: string) => store.channelMemberships(userId, after, PAGE),
          '',
          (row) => row.channel_id,
          (row) => ({
            channelId: row.channel_id,
            membership: row.membership,
            roles: parseJson<string[]>(row.roles, []),
            muteUntil: iso(row.mute_until),
            readToSegment: row.read_to_segment,
            joinedAt: iso(row.created_at),
          }),
        ),
    ],
    [
      'communityMemberships',
      () =>
        jsonArray(
          (after: { communityId: string; joinedAt: number }) => store.communityStints(userId, after, PAGE),
          { communityId: '', joinedAt: -1 },
          (row) => ({ communityId: row.community_id, joinedAt: row.joined_at }),
          (row) => ({ communityId: row.community_id, joinedAt: iso(row.joined_at), leftAt: iso(row.left_at) }),
        ),
    ],
    [
      'messages',
      () =>
        jsonArray(
          (after: string) => store.messages(userId, after, PAGE),
          '',
          (row) => row.id,
          presentMessage,
        ),
    ],
    [
      'messageReactions',
      () =>
        jsonArray(
          (after: string) => store.messageReactions(userId, after, PAGE),
          '',
          (row) => row.id,
          (row) => ({ messageId: row.message_id, reactionName: row.reaction_name, createdAt: iso(row.created_at) }),
        ),
    ],
    [
      'posts',
      () =>
        jsonArray(
          (after: string) => store.posts(userId, after, PAGE),
          '',
          (row) => row.id,
          presentPost,
        ),
    ],
    [
      'comments',
      () =>
        jsonArray(
          (after: string) => store.comments(userId, after, PAGE),
          '',
          (row) => row.id,
          presentComment,
        ),
    ],
    [
      'postReactions',
      () =>
        jsonArray(
          (after: string) => store.postReactions(userId, after, PAGE),
          '',
          (row) => row.id,
          presentPostReaction,
        ),
    ],
    [
      'messageFlags',
      () =>
        jsonArray(
          (after: string) => store.messageFlags(userId, after, PAGE),
          '',
          (row) => row.message_id,
          (row) => ({ messageId: row.message_id, reason: row.reason, createdAt: iso(row.created_at) }),
        ),
    ],
    [
      'userFlags',
      () =>
        jsonArray(
          (after: string) => store.userFlags(userId, after, PAGE),
          '',
          (row) => row.target_user_id,
          (row) => ({ userId: row.target_user_id, reason: row.reason, createdAt: iso(row.created_at) }),
        ),
    ],
    [
      'moderationReviews',
      () =>
        jsonArray(
          (after: string) => store.moderationReviews(userId, after, PAGE),
          '',
          (row) => row.id,
          presentReviewAbout,
        ),
    ],
    [
      'trayRecords',
      () =>
        jsonArray(
          (after: number) => store.trayRecords(userId, after, PAGE),
          0,
          (row) => Number(row.id),
          (row) => ({
            verb: row.verb,
            targetId: row.target_id,
            targetType: row.target_type,
            targetGroup: String(row.window_start),
            lastUpdate: iso(row.last_update),
            communityId: row.community_id,
            communityName: row.community_name,
            actorsCount: row.actors_count,
          }),
        ),
    ],
  ];
}

/**
 * Exports what Parley holds about a user (GDPR article 20) as one JSON document, written as it is
 * read: the profile (never the password hash), memberships, messages, reactions, posts, comments,
 * flags raised (with their reasons), the moderation queue's reviews about the user and the user's own
 * tray records. Tokens, sessions and grants are left out: they are secrets, not the user's data.
 */
export function createExportService(deps: { db: Executor; clock: Clock; findUser: (userId: string) => Promise<UserRow | undefined> }) {
  const store = createExportStore(deps.db);

  async function* document(user: UserRow): AsyncGenerator<string> {
    const profile = { ...presentUser(user), kind: user.kind };
    yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"exportedAt":${JSON.stringify(iso(deps.clock.now()))},"profile":${JSON.stringify(profile)}`;
    for (const [name, section] of sections(store, user.id)) {
      yield `,${JSON.stringify(name)}:`;
      yield* section();
    }
    yield '}';
  }

  return {
    /** The document's chunks; an unknown user is a 404 before any is made. */
    async open(userId: string): Promise<AsyncGenerator<string>> {
      const user = await deps.findUser(userId);
      if (!user) throw notFound('User');
      return document(user);
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
