import type { Executor } from '../../storage/database.js';
import { putSetting } from '../../storage/settings.js';
import type { RuleKind, RuleRow } from './rules.types.js';

/** The settings row whose value changes with every rule write (an opaque stamp, not a count). */
export const RULES_VERSION_KEY = 'moderation_rules_version';

export function createRulesStore(db: Executor) {
  return {
    /** Every rule of a kind in creation order; with keys, only the rules with those canonical forms. */
    async list(kind: RuleKind, keys: readonly string[] | null): Promise<RuleRow[]> {
      let select = db.selectFrom('moderation_rules').selectAll().where('kind', '=', kind);
      if (keys !== null) {
        if (keys.length === 0) return [];
        select = select.where('pattern_key', 'in', keys);
      }
      return select.orderBy('id', 'asc').execute();
    },

    async findByIds(kind: RuleKind, ids: readonly string[]): Promise<RuleRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('moderation_rules').selectAll().where('kind', '=', kind).where('id', 'in', ids).execute();
    },

    async findByKeys(kind: RuleKind, keys: readonly string[]): Promise<RuleRow[]> {
      if (keys.length === 0) return [];
      return db.selectFrom('moderation_rules').selectAll().where('kind', '=', kind).where('pattern_key', 'in', keys).execute();
    },

    async insert(rows: readonly RuleRow[]): Promise<void> {
      if (rows.length > 0)
        await db
          .insertInto('moderation_rules')
          .values([...rows])
          .execute();
    },

    async update(kind: RuleKind, id: string, changes: Partial<Omit<RuleRow, 'id' | 'kind' | 'created_at'>>): Promise<void> {
      await db.updateTable('moderation_rules').set(changes).where('kind', '=', kind).where('id', '=', id).execute();
    },

    async delete(kind: RuleKind, ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await db.deleteFrom('moderation_rules').where('kind', '=', kind).where('id', 'in', ids).execute();
    },

    /** What the matcher is compiled from: the enabled rules of both kinds. */
    /** Oldest first, so reports of a text's violations list rules in a stable order. */
    async listEnabled(): Promise<Array<Pick<RuleRow, 'id' | 'kind' | 'pattern' | 'is_match_exact_word'>>> {
      return db.selectFrom('moderation_rules').select(['id', 'kind', 'pattern', 'is_match_exact_word']).where('is_enabled', '=', 1).orderBy('id').execute();
    },

    async readVersion(): Promise<string | null> {
      const row = await db.selectFrom('settings').select('value').where('key', '=', RULES_VERSION_KEY).executeTakeFirst();
      return row?.value ?? null;
    },

    /** Marks every compiled matcher stale; runs in the writing transaction. */
    async bumpVersion(version: string): Promise<void> {
      await putSetting(db, RULES_VERSION_KEY, version);
    },
  };
}

export type RulesStore = ReturnType<typeof createRulesStore>;
