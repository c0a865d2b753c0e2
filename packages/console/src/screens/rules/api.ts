import { api, call } from '../../api/client.js';
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

export async function listRules(kind: RuleKind): Promise<Rule[]> {
  const answer = kind === 'blacklist' ? await call(api.GET('/api/v2/blacklist/records')) : await call(api.GET('/api/v2/whitelist/records'));
  return answer.data.results.map(asRule);
}

/** Creates one rule per word, all or none (a word that has a rule already refuses the whole create). */
export async function createRules(kind: RuleKind, words: string[], wholeWord: boolean): Promise<Rule[]> {
  const answer =
    kind === 'blacklist'
      ? await call(api.POST('/api/v2/blacklist/records', { body: { regexs: words, isMatchExactWord: wholeWord } }))
      : await call(api.POST('/api/v2/whitelist/records', { body: { regexs: words } }));
  return answer.data.results.map(asRule);
}

export async function updateRule(kind: RuleKind, ruleId: string, change: RuleChange): Promise<Rule> {
  const params = { path: { ruleId } };
  if (kind === 'blacklist') return asRule((await call(api.PUT('/api/v2/blacklist/records/{ruleId}', { params, body: change }))).data);
  const { isMatchExactWord: _ignored, ...whitelistChange } = change;
  return asRule((await call(api.PUT('/api/v2/whitelist/records/{ruleId}', { params, body: whitelistChange }))).data);
}

export async function deleteRules(kind: RuleKind, ruleIds: string[]): Promise<void> {
  if (kind === 'blacklist') await call(api.DELETE('/api/v2/blacklist/records', { body: { ruleIds } }));
  else await call(api.DELETE('/api/v2/whitelist/records', { body: { ruleIds } }));
}

/**
 * POST /api/v2/rules/test: the server's own check of a text against the enabled rules. The matching
 * (Unicode folding, word boundaries, link extraction) is the server's; the console does not copy it.
 */
export function testText(text: string): Promise<RuleTestAnswer> {
  return call(api.POST('/api/v2/rules/test', { body: { text } }));
}

/** The lines of a pasted list: trimmed, blanks and repeats dropped, in the order given. */
export function linesOf(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((line) => line.trim()))].filter((line) => line !== '');
}
