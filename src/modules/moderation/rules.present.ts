import { iso } from '../channels/channels.present.js';
import type { RuleRow } from './rules.store.js';

/** moderation_rules rows -> the blacklist and whitelist records of API-CONVENTIONS.md section 3. */
export function presentBlacklistRule(row: RuleRow) {
  return {
    ruleId: row.id,
    regex: row.pattern,
    isMatchExactWord: row.is_match_exact_word === 1,
    isEnabled: row.is_enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentWhitelistRule(row: RuleRow) {
  return {
    ruleId: row.id,
    regex: row.pattern,
    isEnabled: row.is_enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export type BlacklistRuleRecord = ReturnType<typeof presentBlacklistRule>;
export type WhitelistRuleRecord = ReturnType<typeof presentWhitelistRule>;
