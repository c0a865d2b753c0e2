import { ApiError } from '../../api/client.js';
import type { Rule } from '../../api/types.js';
import { createRules, MAX_RULES_PER_CREATE, type RuleKind } from './api.js';

export interface BulkOutcome {
  created: Rule[];
  failed: Array<{ word: string; error: unknown }>;
}

/**
 * Creates a rule per word. A create is all or none, so each batch goes in one request, and only a
 * refused batch is tried again word by word, to create the good ones and name the words that failed.
 */
export async function createMany(kind: RuleKind, words: string[], wholeWord: boolean): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { created: [], failed: [] };
  for (let start = 0; start < words.length; start += MAX_RULES_PER_CREATE) {
    const batch = words.slice(start, start + MAX_RULES_PER_CREATE);
    try {
      outcome.created.push(...(await createRules(kind, batch, wholeWord)));
      continue;
    } catch (error) {
      // A batch of one has failed for its only word; the server being unreachable fails every word alike.
      if (batch.length === 1 || !(error instanceof ApiError) || error.status === 0 || error.status === 401 || error.status === 403) {
        outcome.failed.push(...batch.map((word) => ({ word, error })));
        continue;
      }
    }
    for (const word of batch) {
      try {
        outcome.created.push(...(await createRules(kind, [word], wholeWord)));
      } catch (error) {
        outcome.failed.push({ word, error });
      }
    }
  }
  return outcome;
}
