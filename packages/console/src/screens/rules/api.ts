import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';
import { type MutationConfig, useApiMutation } from '../../api/mutation.js';
import type { Rule, RuleChange, RuleTestAnswer } from '../../api/types.js';

/** The blacklist (words) and whitelist (links) routes, as one shape for both lists (a blacklist rule's). */

export type RuleKind = 'blacklist' | 'whitelist';

export const ruleKeys = {
  all: ['rules'] as const,
  list: (kind: RuleKind) => ['rules', kind] as const,
};

/** The most rules one create takes (the routes' maxItems). */
export const MAX_RULES_PER_CREATE = 100;

const asRule = (rule: Omit<Rule, 'isMatchExactWord'> & { isMatchExactWord?: boolean }): Rule => ({ ...rule, isMatchExactWord: rule.isMatchExactWord ?? false });

async function listRules(kind: RuleKind): Promise<Rule[]> {
  const answer = kind === 'blacklist' ? await call(api.GET('/api/v2/blacklist/records')) : await call(api.GET('/api/v2/whitelist/records'));
  return answer.data.results.map(asRule);
}

export const rulesQuery = (kind: RuleKind) => queryOptions({ queryKey: ruleKeys.list(kind), queryFn: () => listRules(kind) });

const refreshRules = (kind: RuleKind) => (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: ruleKeys.list(kind) });

/** Creates one rule per word, all or none (a word that has a rule already refuses the whole create). */
async function createRules(kind: RuleKind, words: string[], wholeWord: boolean): Promise<Rule[]> {
  const answer =
    kind === 'blacklist'
      ? await call(api.POST('/api/v2/blacklist/records', { body: { regexs: words, isMatchExactWord: wholeWord } }))
      : await call(api.POST('/api/v2/whitelist/records', { body: { regexs: words } }));
  return answer.data.results.map(asRule);
}

async function updateRule(kind: RuleKind, ruleId: string, change: RuleChange): Promise<Rule> {
  const params = { path: { ruleId } };
  if (kind === 'blacklist') return asRule((await call(api.PUT('/api/v2/blacklist/records/{ruleId}', { params, body: change }))).data);
  const { isMatchExactWord: _ignored, ...whitelistChange } = change;
  return asRule((await call(api.PUT('/api/v2/whitelist/records/{ruleId}', { params, body: whitelistChange }))).data);
}

async function deleteRules(kind: RuleKind, ruleIds: string[]): Promise<void> {
  if (kind === 'blacklist') await call(api.DELETE('/api/v2/blacklist/records', { body: { ruleIds } }));
  else await call(api.DELETE('/api/v2/whitelist/records', { body: { ruleIds } }));
}

/** Words to make rules of; `wholeWord` applies to the blacklist only. */
export interface NewRules {
  words: string[];
  wholeWord: boolean;
}

/** Creates one rule per word in one request, all or none. */
export const useAddRules = (kind: RuleKind, config: MutationConfig<Rule[], NewRules> = {}) =>
  useApiMutation(({ words, wholeWord }: NewRules) => createRules(kind, words, wholeWord), refreshRules(kind), config);

export interface BulkOutcome {
  created: Rule[];
  failed: Array<{ word: string; error: unknown }>;
}

/**
 * Creates a rule per word. A create is all or none, so each batch goes in one request, and only a
 * refused batch is tried again word by word, to create the good ones and name the words that failed.
 */
async function createMany(kind: RuleKind, words: string[], wholeWord: boolean): Promise<BulkOutcome> {
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

/** Creates rules from a pasted list, batch by batch, naming the words that failed. */
export const useBulkAddRules = (kind: RuleKind, config: MutationConfig<BulkOutcome, NewRules> = {}) =>
  useApiMutation(({ words, wholeWord }: NewRules) => createMany(kind, words, wholeWord), refreshRules(kind), config);

export const useUpdateRule = (kind: RuleKind, ruleId: string, config: MutationConfig<Rule, RuleChange> = {}) =>
  useApiMutation((change: RuleChange) => updateRule(kind, ruleId, change), refreshRules(kind), config);

/** Switches a rule on or off; the mutation's variables are the state asked for, which the switch shows meanwhile. */
export const useSetRuleEnabled = (kind: RuleKind, ruleId: string) =>
  useApiMutation((isEnabled: boolean) => updateRule(kind, ruleId, { isEnabled }), refreshRules(kind));

export const useDeleteRule = (kind: RuleKind) => useApiMutation((ruleId: string) => deleteRules(kind, [ruleId]), refreshRules(kind));

/**
 * POST /api/v2/rules/test: the server's own check of a text against the enabled rules. The matching
 * (Unicode folding, word boundaries, link extraction) is the server's; the console does not copy it.
 */
export const useTestText = () => useApiMutation((text: string): Promise<RuleTestAnswer> => call(api.POST('/api/v2/rules/test', { body: { text } })), null);

/** The lines of a pasted list: trimmed, blanks and repeats dropped, in the order given. */
export function linesOf(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((line) => line.trim()))].filter((line) => line !== '');
}
