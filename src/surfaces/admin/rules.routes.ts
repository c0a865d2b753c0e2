import { Type } from '@sinclair/typebox';
import { Id, IdList } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentBlacklistRule, presentWhitelistRule } from '../../modules/moderation/rules.present.js';
import { MAX_RULE_LENGTH, type RulesService } from '../../modules/moderation/rules.service.js';
import type { RuleKind, RuleRow } from '../../modules/moderation/rules.store.js';

const RuleIdParams = Type.Object({ ruleId: Id('The rule to change') });
const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));

/**
 * /blacklist/records and /whitelist/records. Every answer, writes included, is
 * {"status":"success","data":{"results":[rule...]}}: GET the matching rules, POST the created ones,
 * PUT the changed one, DELETE the deleted ones.
 */
export function registerRuleRoutes(app: TypedApp, deps: { rules: RulesService }): void {
  const { rules } = deps;
  for (const kind of ['blacklist', 'whitelist'] as const satisfies readonly RuleKind[]) {
    const present = kind === 'blacklist' ? presentBlacklistRule : presentWhitelistRule;
    const answer = (rows: readonly RuleRow[]) => ({ status: 'success' as const, data: { results: rows.map(present) } });
    const what = kind === 'blacklist' ? 'word' : 'URL';
    const Word = (description: string) => Type.String({ minLength: 1, maxLength: MAX_RULE_LENGTH[kind], description });
    const Words = (description: string, minItems: number) => Type.Array(Word(`A ${what}, taken literally`), { minItems, maxItems: 100, description });
    const tag = { tags: [kind] };
    const base = `/${kind}/records`;

    app.get(
      base,
      {
        schema: {
          ...tag,
          summary: `List ${kind} rules`,
          querystring: Type.Object({ regexs: Type.Optional(Words(`Only the rules for these ${what}s`, 0)) }),
        },
      },
      async (request) => answer(await rules.list(kind, request.query.regexs)),
    );

    app.post(
      base,
      {
        schema: {
          ...tag,
          summary: `Add ${kind} rules, one per ${what}`,
          body: Type.Object({
            regexs: Words(`One rule is created per ${what}`, 1),
            ...(kind === 'blacklist' ? { isMatchExactWord: Flag('Block the word only where it stands as a whole word (default false)') } : {}),
          }),
        },
      },
      async (request) => {
        const body = request.body as { regexs: string[]; isMatchExactWord?: boolean };
        return answer(await rules.create(kind, body.regexs, body.isMatchExactWord === true));
      },
    );

    app.delete(
      base,
      { schema: { ...tag, summary: `Delete ${kind} rules (all or none)`, body: Type.Object({ ruleIds: IdList('Rules to delete', 1) }) } },
      async (request) => answer(await rules.remove(kind, request.body.ruleIds)),
    );

    app.put(
      `${base}/:ruleId`,
      {
        schema: {
          ...tag,
          summary: `Change a ${kind} rule`,
          params: RuleIdParams,
          body: Type.Object({
            ruleId: Type.Optional(Word(`The new ${what}`)),
            ...(kind === 'blacklist' ? { isMatchExactWord: Flag('Defaults to false when a new word is given') } : {}),
            isEnabled: Flag('A disabled rule is kept but not enforced'),
          }),
        },
      },
      async (request) => {
        const body = request.body as { ruleId?: string; isMatchExactWord?: boolean; isEnabled?: boolean };
        const row = await rules.update(kind, request.params.ruleId, { word: body.ruleId, isMatchExactWord: body.isMatchExactWord, isEnabled: body.isEnabled });
        return answer([row]);
      },
    );
  }
}
