import { type Static, Type } from '@sinclair/typebox';
import { iso } from '../../shared/values.js';
import type { RuleRow } from './rules.types.js';
import { IsoTime } from '../../shared/schemas.js';

/** moderation_rules rows -> the blacklist and whitelist records of docs/contract.md, Records. */
export const BlacklistRuleRecord = Type.Object(
  {
    ruleId: Type.String(),
    regex: Type.String({ description: 'The blocked word, as the operator gave it (trimmed); a literal, never a regular expression' }),
    isMatchExactWord: Type.Boolean({ description: 'Whether only the whole word matches, not the word inside a longer one' }),
    isEnabled: Type.Boolean(),
    createdAt: IsoTime('When the rule was created'),
    updatedAt: IsoTime('When the rule last changed'),
  },
  {
    description: 'A blacklisted word: a message containing it is refused with 400308',
    examples: [
      {
        ruleId: '67d3f5a5e4b0a1c2d3e4f510',
        regex: 'spoiler',
        isMatchExactWord: true,
        isEnabled: true,
        createdAt: '2025-02-10T14:03:00.000Z',
        updatedAt: '2025-02-10T14:03:00.000Z',
      },
    ],
  },
);
export type BlacklistRuleRecord = Static<typeof BlacklistRuleRecord>;

export const WhitelistRuleRecord = Type.Object(
  {
    ruleId: Type.String(),
    regex: Type.String({ description: 'The allowed link, as the operator gave it (trimmed): its host (subdomains included) and path prefix' }),
    isEnabled: Type.Boolean(),
    createdAt: IsoTime('When the rule was created'),
    updatedAt: IsoTime('When the rule last changed'),
  },
  {
    description: 'A whitelisted link: once any whitelist rule is enabled, every link in a message must match one (else 400309)',
    examples: [
      {
        ruleId: '67d3f5a5e4b0a1c2d3e4f511',
        regex: 'https://docs.example.com/handbook',
        isEnabled: true,
        createdAt: '2025-02-10T14:05:00.000Z',
        updatedAt: '2025-02-11T08:30:00.000Z',
      },
    ],
  },
);
export type WhitelistRuleRecord = Static<typeof WhitelistRuleRecord>;

export function presentBlacklistRule(row: RuleRow): BlacklistRuleRecord {
  return {
    ruleId: row.id,
    regex: row.pattern,
    isMatchExactWord: row.is_match_exact_word === 1,
    isEnabled: row.is_enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentWhitelistRule(row: RuleRow): WhitelistRuleRecord {
  return {
    ruleId: row.id,
    regex: row.pattern,
    isEnabled: row.is_enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
