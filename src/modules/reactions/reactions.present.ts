import { iso } from '../channels/channels.present.js';
import type { ReactionRow } from './reactions.store.js';

/** The only referenceType reactions support (SPEC.md, Reactions). */
export const REFERENCE_TYPE = 'message';

/** A reactor as API-CONVENTIONS.md section 3 shows it inside `reactions[].reactors`. */
export function presentReactor(row: ReactionRow) {
  return {
    reactionName: row.reaction_name,
    userId: row.user_id,
    reactionId: row.id,
    createdAt: iso(row.created_at) as string,
  };
}

/** The message's reaction summary after a change: the fields of its record that moved. */
export interface ReactionSummary {
  messageId: string;
  channelId: string;
  reactions: Record<string, number>;
  reactionsCount: number;
}

/** The data of reaction.added / reaction.removed events (real-time stream, webhooks). */
export function presentReactionEvent(row: ReactionRow, summary: ReactionSummary) {
  return {
    reaction: { referenceId: row.message_id, referenceType: REFERENCE_TYPE, ...presentReactor(row) },
    message: summary,
  };
}
