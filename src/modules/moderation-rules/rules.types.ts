import type { ModerationRulesTable } from '../../storage/schema.js';

/** A blacklist or whitelist rule as stored. */
export type RuleRow = ModerationRulesTable;
export type RuleKind = 'blacklist' | 'whitelist';
