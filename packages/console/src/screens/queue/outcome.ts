import type { Review } from '../../api/types.js';
import { durationLabel } from '../../components/Duration.js';

const AUTHOR_WORDS: Record<string, string> = {
  mute: 'author muted in the channel',
  ban: 'author banned from the channel',
  globalBan: 'author banned globally',
};
const DECISION_WORDS: Record<string, string> = { dismiss: 'Flags dismissed', delete: 'Message deleted', globalBan: 'User banned globally' };

/** A review's decision in words: "Message deleted; author muted in the channel for 1 hour". */
export function outcomeOf(review: Pick<Review, 'decision' | 'authorAction'>): string {
  const parts = [DECISION_WORDS[review.decision] ?? review.decision];
  if (review.authorAction) {
    const { action, minutes } = review.authorAction;
    const length = minutes === null || minutes === undefined ? 'permanently' : `for ${durationLabel(minutes)}`;
    parts.push(`${AUTHOR_WORDS[action] ?? action} ${length}`);
  }
  return parts.join('; ');
}
