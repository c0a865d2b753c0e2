import { type Static, Type } from '@sinclair/typebox';
import { iso } from '../../shared/values.js';
import type { ReactionRow } from './reactions.store.js';
import { IsoTime, ReactionCounts } from '../../shared/schemas.js';

/** The only referenceType reactions support (docs/contract.md, Admin API). */
export const REFERENCE_TYPE = 'message';

const ReactionId = Type.String({ description: 'The id of this one reaction (what POST answers as addedId)' });

export const ReactorRecord = Type.Object(
  {
    reactionName: Type.String(),
    userId: Type.String({ description: 'Who reacted' }),
    reactionId: ReactionId,
    createdAt: IsoTime('When the user reacted'),
  },
  {
    description: "One user's reaction of one name",
    examples: [{ reactionName: 'like', userId: 'alice', reactionId: '67d3f5a5e4b0a1c2d3e4f540', createdAt: '2025-03-14T09:28:05.771Z' }],
  },
);
export type ReactorRecord = Static<typeof ReactorRecord>;

/** One entry of `data.reactions` in the reactions query (docs/contract.md, Records). */
export const ReactionRecord = Type.Object(
  {
    referenceId: Type.String({ description: 'The message reacted to' }),
    referenceType: Type.Literal(REFERENCE_TYPE),
    reactors: Type.Array(ReactorRecord),
  },
  {
    description: "A message's reactors",
    examples: [
      {
        referenceId: '67d3f5a5e4b0a1c2d3e4f501',
        referenceType: 'message',
        reactors: [
          { reactionName: 'like', userId: 'alice', reactionId: '67d3f5a5e4b0a1c2d3e4f540', createdAt: '2025-03-14T09:28:05.771Z' },
          { reactionName: 'heart', userId: 'bob', reactionId: '67d3f5b1e4b0a1c2d3e4f541', createdAt: '2025-03-14T09:29:17.020Z' },
        ],
      },
    ],
  },
);
export type ReactionRecord = Static<typeof ReactionRecord>;

/** The message's reaction summary after a change: the fields of its record that moved. */
export const ReactionSummaryRecord = Type.Object(
  {
    messageId: Type.String(),
    channelId: Type.String(),
    reactions: ReactionCounts('How many reactions of each name the message has'),
    reactionsCount: Type.Integer({ description: 'All reactions on the message' }),
  },
  {
    description: "A message's reaction counts after a change",
    examples: [{ messageId: '67d3f5a5e4b0a1c2d3e4f501', channelId: 'general', reactions: { like: 3, heart: 1 }, reactionsCount: 4 }],
  },
);
export type ReactionSummary = Static<typeof ReactionSummaryRecord>;

/** The data of reaction.added / reaction.removed events (real-time stream, webhooks). */
export const ReactionEventRecord = Type.Object(
  {
    reaction: Type.Composite([
      Type.Object({ referenceId: Type.String({ description: 'The message reacted to' }), referenceType: Type.Literal(REFERENCE_TYPE) }),
      ReactorRecord,
    ]),
    message: ReactionSummaryRecord,
  },
  {
    description: 'The data of a reaction.added or reaction.removed event',
    examples: [
      {
        reaction: {
          referenceId: '67d3f5a5e4b0a1c2d3e4f501',
          referenceType: 'message',
          reactionName: 'like',
          userId: 'alice',
          reactionId: '67d3f5a5e4b0a1c2d3e4f540',
          createdAt: '2025-03-14T09:28:05.771Z',
        },
        message: { messageId: '67d3f5a5e4b0a1c2d3e4f501', channelId: 'general', reactions: { like: 3, heart: 1 }, reactionsCount: 4 },
      },
    ],
  },
);
export type ReactionEventRecord = Static<typeof ReactionEventRecord>;

/** A reactor as docs/contract.md, Records, shows it inside `reactions[].reactors`. */
export function presentReactor(row: ReactionRow): ReactorRecord {
  return {
    reactionName: row.reaction_name,
    userId: row.user_id,
    reactionId: row.id,
    createdAt: iso(row.created_at),
  };
}

/** The reactors of one message, as the reactions query lists them. */
export function presentReaction(messageId: string, rows: readonly ReactionRow[]): ReactionRecord {
  return { referenceId: messageId, referenceType: REFERENCE_TYPE, reactors: rows.map(presentReactor) };
}

export function presentReactionEvent(row: ReactionRow, summary: ReactionSummary): ReactionEventRecord {
  return {
    reaction: { referenceId: row.message_id, referenceType: REFERENCE_TYPE, ...presentReactor(row) },
    message: summary,
  };
}
