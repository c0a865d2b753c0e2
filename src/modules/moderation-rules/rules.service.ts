import type { Clock } from '../../clock.js';
import { AppError, type ErrorDetail, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { isUniqueViolation, runTransaction } from '../../storage/transactions.js';
import { foldKey } from './fold.js';
import { parseWhitelistRule } from './link-hosts.js';
import type { ModerationService } from './moderation.service.js';
import { createRulesStore, type RulesStore } from './rules.store.js';
import type { RuleKind, RuleRow } from './rules.types.js';

export interface RuleChanges {
  /** The new word or URL (the body's `regex` or `ruleId` in PUT). */
  word?: string | undefined;
  /** Where the word came from, named in errors; `body.ruleId` unless said. */
  wordField?: string | undefined;
  isMatchExactWord?: boolean | undefined;
  isEnabled?: boolean | undefined;
}

/** One rule a tested text breaks. */
export interface RuleMatch {
  ruleId: string | null;
  list: RuleKind;
  /** The blacklisted word (as its rule has it), or the link that is not whitelisted. */
  word: string;
}

export interface RuleTestResult {
  allowed: boolean;
  matched: RuleMatch[];
}

/** Longest word or URL accepted. */
export const MAX_RULE_LENGTH = { blacklist: 200, whitelist: 500 } as const;

/** The canonical form that makes two spellings one rule: a case-folded word, or host + path. Null if unusable. */
export function ruleKeyOf(kind: RuleKind, word: string): string | null {
  if (kind === 'blacklist') {
    const key = foldKey(word);
    return key.trim().length === 0 ? null : key;
  }
  const rule = parseWhitelistRule(word);
  return rule ? `${rule.host}${rule.path}` : null;
}

function invalid(kind: RuleKind, field: string): ErrorDetail {
  return { field, message: kind === 'blacklist' ? 'must contain a visible word' : 'must be a domain or URL, such as example.com or https://example.com/docs' };
}

/** The rule key of each word, or 422 naming every word that makes no rule. */
function keysOf(kind: RuleKind, words: readonly string[], field: (index: number) => string): string[] {
  const keys: string[] = [];
  const problems: ErrorDetail[] = [];
  words.forEach((word, index) => {
    const key = word.length <= MAX_RULE_LENGTH[kind] ? ruleKeyOf(kind, word) : null;
    if (key === null) problems.push(invalid(kind, field(index)));
    keys.push(key ?? '');
  });
  if (problems.length > 0)
    throw new AppError('parameters', `${problems.map((problem) => problem.field).join(', ')}: ${problems[0]?.message ?? ''}.`, { detail: problems });
  return keys;
}

/** 409 naming the rules that already hold these words. */
function refuseTaken(taken: readonly RuleRow[]): void {
  if (taken.length === 0) return;
  throw new AppError('alreadyExists', `Rule already exists: ${taken.map((row) => row.pattern).join(', ')}.`, {
    detail: taken.map((row) => ({ field: 'body.regexs', message: `${row.pattern} is rule ${row.id}` })),
  });
}

/** One new rule per distinct key, in the order of the words. */
function newRuleRows(kind: RuleKind, words: readonly string[], keys: readonly string[], isMatchExactWord: boolean, now: number): RuleRow[] {
  const rows: RuleRow[] = [];
  const seen = new Set<string>();
  words.forEach((word, index) => {
    const key = keys[index] as string;
    if (seen.has(key)) return;
    seen.add(key);
    rows.push({
      id: newObjectId(now),
      kind,
      pattern: word.trim(),
      pattern_key: key,
      is_match_exact_word: kind === 'blacklist' && isMatchExactWord ? 1 : 0,
      is_enabled: 1,
      created_at: now,
      updated_at: now,
    });
  });
  return rows;
}

/** The admin API's blacklist and whitelist records. Every write bumps the rules version and rebuilds the matcher after commit. */
export function createRulesService(deps: { db: Executor; clock: Clock; moderation: ModerationService }) {
  const { db, clock, moderation } = deps;
  const rules = createRulesStore(db);

  async function write<T>(work: (store: RulesStore) => Promise<T>): Promise<T> {
    const version = moderation.newVersion();
    let result: T;
    try {
      result = await runTransaction(db, async (trx) => {
        const store = createRulesStore(trx);
        const out = await work(store);
        await store.bumpVersion(version);
        return out;
      });
    } catch (error) {
      // Two writers raced for the same word; the unique index kept one.
      if (isUniqueViolation(error)) throw new AppError('alreadyExists', 'Rule already exists.');
      throw error;
    }
    await moderation.rebuild();
    moderation.announce(version);
    return result;
  }

  return {
    /**
     * What a message send would say of `text`: every enabled rule it breaks, found by the same matcher
     * (folding, word boundaries, link extraction) a send checks with. A link no whitelist rule allows
     * has no rule to name: ruleId null, the link as the word. Nothing is stored.
     */
    async test(text: string): Promise<RuleTestResult> {
      const matched = (await moderation.violationsOf(text)).map(
        (violation): RuleMatch =>
          violation.kind === 'blacklisted'
            ? { ruleId: violation.ruleId ?? null, list: 'blacklist', word: violation.word }
            : { ruleId: null, list: 'whitelist', word: violation.link },
      );
      return { allowed: matched.length === 0, matched };
    },

    /** Every rule of the kind, oldest first; `filter` keeps the rules for those words or URLs. */
    async list(kind: RuleKind, filter: readonly string[] | undefined): Promise<RuleRow[]> {
      if (filter === undefined) return rules.list(kind, null);
      const keys = filter.map((word) => ruleKeyOf(kind, word)).filter((key): key is string => key !== null);
      return rules.list(kind, keys);
    },

    /** One rule per word, all or none: a word that already has a rule is 409 and nothing is created. */
    async create(kind: RuleKind, words: readonly string[], isMatchExactWord: boolean): Promise<RuleRow[]> {
      const keys = keysOf(kind, words, (index) => `body.regexs[${index}]`);
      const now = clock.now();
      const rows = newRuleRows(kind, words, keys, isMatchExactWord, now);
      return write(async (store) => {
        refuseTaken(
          await store.list(
            kind,
            rows.map((row) => row.pattern_key),
          ),
        );
        await store.insert(rows);
        return rows;
      });
    },

    /** Deletes all or none: unknown ruleIds are 404 listing them. Answers the deleted rules. */
    async remove(kind: RuleKind, ruleIds: readonly string[]): Promise<RuleRow[]> {
      const unique = [...new Set(ruleIds)];
      return write(async (store) => {
        const found = await store.findByIds(kind, unique);
        const known = new Set(found.map((row) => row.id));
        const missing = unique.filter((id) => !known.has(id));
        if (missing.length > 0) {
          throw new AppError('notFound', `Rule not found: ${missing.join(', ')}.`, {
            detail: missing.map((id) => ({ field: 'body.ruleIds', message: `rule ${id} does not exist` })),
          });
        }
        await store.delete(kind, unique);
        return unique.map((id) => found.find((row) => row.id === id) as RuleRow);
      });
    },

    /**
     * Changes a rule. A new word replaces the rule as the contract describes (docs/contract.md, Admin API), so isMatchExactWord then
     * defaults to false; without a word, only the fields given change (e.g. just isEnabled).
     */
    async update(kind: RuleKind, ruleId: string, changes: RuleChanges): Promise<RuleRow> {
      if (changes.word === undefined && changes.isMatchExactWord === undefined && changes.isEnabled === undefined) {
        const fields = kind === 'blacklist' ? 'regex or ruleId (the new word), isMatchExactWord or isEnabled' : 'regex or ruleId (the new URL) or isEnabled';
        throw new AppError('parameters', `Give at least one of ${fields}.`, { detail: [{ field: 'body', message: `give at least one of ${fields}` }] });
      }
      const key = changes.word === undefined ? null : (keysOf(kind, [changes.word], () => changes.wordField ?? 'body.ruleId')[0] as string);
      return write(async (store) => {
        const [existing] = await store.findByIds(kind, [ruleId]);
        if (!existing) throw notFound('Rule');
        const update: Partial<RuleRow> = { updated_at: clock.now() };
        if (changes.word !== undefined && key !== null) {
          refuseTaken((await store.list(kind, [key])).filter((row) => row.id !== ruleId));
          update.pattern = changes.word.trim();
          update.pattern_key = key;
          if (kind === 'blacklist') update.is_match_exact_word = changes.isMatchExactWord === true ? 1 : 0;
        } else if (kind === 'blacklist' && changes.isMatchExactWord !== undefined) {
          update.is_match_exact_word = changes.isMatchExactWord ? 1 : 0;
        }
        if (changes.isEnabled !== undefined) update.is_enabled = changes.isEnabled ? 1 : 0;
        await store.update(kind, ruleId, update);
        return { ...existing, ...update };
      });
    },
  };
}

export type RulesService = ReturnType<typeof createRulesService>;
