import { type TObject, Type } from '@sinclair/typebox';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { AppError } from '../../shared/errors.js';
import { Id, IdList } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { BlacklistRuleRecord, presentBlacklistRule, presentWhitelistRule, WhitelistRuleRecord } from '../../modules/moderation-rules/rules.present.js';
import { MAX_RULE_LENGTH, type RuleChanges, type RulesService } from '../../modules/moderation-rules/rules.service.js';
import type { RuleKind, RuleRow } from '../../modules/moderation-rules/rules.types.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { bodyOrQuery } from './body-or-query.js';
import { networkAdmins } from './console-access.js';

const RuleIdParams = Type.Object({ ruleId: Id('The rule to change') });
const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));

/** What differs between the two kinds of rule: their record, what a rule holds, and realistic examples. */
const KINDS = {
  blacklist: { record: BlacklistRuleRecord, present: presentBlacklistRule, what: 'word', examples: ['spoiler', 'leak'] },
  whitelist: { record: WhitelistRuleRecord, present: presentWhitelistRule, what: 'URL', examples: ['docs.example.com', 'https://example.org/handbook'] },
} as const satisfies Record<RuleKind, unknown>;

const RULE_ID_EXAMPLES = ['67d3f5a5e4b0a1c2d3e4f510', '67d3f5a5e4b0a1c2d3e4f512'];

/** `{status, data: {results: [rule...]}}`, the answer of GET, POST and DELETE. */
function rulesAnswerOf(record: TObject, examples: readonly string[]) {
  const [first] = record.examples as Array<Record<string, unknown>>;
  const results = examples.map((regex, index) => ({ ...first, ruleId: RULE_ID_EXAMPLES[index], regex }));
  return Type.Object(
    { status: Type.Literal('success'), data: Type.Object({ results: Type.Array(record) }) },
    { description: 'The rules', examples: [{ status: 'success', data: { results } }] },
  );
}

/** `{status, data: rule}`, the answer of PUT, as the original's BlacklistRuleResponse. */
function ruleAnswerOf(record: TObject) {
  const [first] = record.examples as unknown[];
  return Type.Object({ status: Type.Literal('success'), data: record }, { description: 'The changed rule', examples: [{ status: 'success', data: first }] });
}

interface RuleUpdateBody {
  ruleId?: string;
  regex?: string;
  isMatchExactWord?: boolean;
  isEnabled?: boolean;
}

/**
 * The word a PUT names, and the field it came in. The contract (docs/contract.md, Admin API) reads the body's `ruleId` as the new word;
 * the original's clients send the rule's own id there (`{ruleId, isEnabled}`), which names no word:
 * taken as one, it replaced the blocked word with the id. `regex` names the word unambiguously.
 */
function wordOf(body: RuleUpdateBody, pathRuleId: string): Pick<RuleChanges, 'word' | 'wordField'> {
  const ruleIdWord = body.ruleId === undefined || body.ruleId === pathRuleId ? undefined : body.ruleId;
  if (body.regex === undefined) return ruleIdWord === undefined ? {} : { word: ruleIdWord, wordField: 'body.ruleId' };
  if (ruleIdWord !== undefined && ruleIdWord !== body.regex) {
    throw new AppError('parameters', 'body.ruleId and body.regex name different words; give the new word once.', {
      detail: [{ field: 'body.ruleId', message: "must be the rule's id or the same word as body.regex" }],
    });
  }
  return { word: body.regex, wordField: 'body.regex' };
}

/**
 * /blacklist/records and /whitelist/records. GET, POST and DELETE answer
 * {"status":"success","data":{"results":[rule...]}} (the matching, created or deleted rules); PUT
 * answers {"status":"success","data":rule}, as the original did.
 */
export function registerRuleRoutes(app: TypedApp, deps: { rules: RulesService }): void {
  const { rules } = deps;
  for (const kind of ['blacklist', 'whitelist'] as const satisfies readonly RuleKind[]) {
    const { record, present, what, examples } = KINDS[kind];
    const RulesAnswer = rulesAnswerOf(record, examples);
    const answer = (rows: readonly RuleRow[]) => ({ status: 'success' as const, data: { results: rows.map(present) } });
    const Word = (description: string) => Type.String({ minLength: 1, maxLength: MAX_RULE_LENGTH[kind], description });
    const Words = (description: string, minItems: number) => Type.Array(Word(`A ${what}, taken literally`), { minItems, maxItems: 100, description });
    const RuleIds = (where: string) =>
      Type.Object({ ruleIds: Type.Optional(IdList(`Rules to delete; required, here or ${where}`, 1)) }, { examples: [{ ruleIds: RULE_ID_EXAMPLES }] });
    const tag = { tags: [kind] };
    const base = `/${kind}/records`;

    app.get(
      base,
      {
        config: networkAdmins('moderation rules'),
        schema: {
          ...tag,
          summary: `List ${kind} rules`,
          description: `Every ${kind} rule, oldest first; \`regexs\` keeps the rules for those ${what}s (matched as the rules match, not as text).`,
          querystring: Type.Object({ regexs: Type.Optional(Words(`Only the rules for these ${what}s`, 0)) }, { examples: [{ regexs: [examples[0]] }] }),
          response: answers(RulesAnswer),
        },
      },
      async (request) => answer(await rules.list(kind, request.query.regexs)),
    );

    app.post(
      base,
      {
        config: { ...networkAdmins('moderation rules'), audit: `${kind}.create` },
        schema: {
          ...tag,
          summary: `Add ${kind} rules, one per ${what}`,
          description: `Creates one enabled rule per ${what}, all or none. A ${what} that already has a rule is 409; an unusable one 422.`,
          consumes: JSON_AND_FORM,
          body: Type.Object(
            {
              regexs: Words(`One rule is created per ${what}`, 1),
              ...(kind === 'blacklist' ? { isMatchExactWord: Flag('Block the word only where it stands as a whole word (default false)') } : {}),
            },
            { examples: [{ regexs: [...examples], ...(kind === 'blacklist' ? { isMatchExactWord: true } : {}) }] },
          ),
          response: answers(RulesAnswer, { extraErrors: [409] }),
        },
      },
      async (request) => {
        const body = request.body as { regexs: string[]; isMatchExactWord?: boolean };
        return answer(await rules.create(kind, body.regexs, body.isMatchExactWord === true));
      },
    );

    app.delete(
      base,
      {
        config: { ...networkAdmins('moderation rules'), audit: `${kind}.delete` },
        schema: {
          ...tag,
          summary: `Delete ${kind} rules (all or none)`,
          description: `Deletes the rules named by \`ruleIds\`, in the body or in the query string (\`ruleIds=a&ruleIds=b\` or \`ruleIds[]=a\`), not both. Any unknown id is 404 and deletes nothing.`,
          consumes: JSON_AND_FORM,
          body: RuleIds('in the query string'),
          querystring: RuleIds('in the body'),
          response: answers(RulesAnswer),
        },
      },
      async (request) => answer(await rules.remove(kind, bodyOrQuery(request.body, request.query, ['ruleIds']).ruleIds)),
    );

    app.put(
      `${base}/:ruleId`,
      {
        config: { ...networkAdmins('moderation rules'), audit: `${kind}.update` },
        schema: {
          ...tag,
          summary: `Change a ${kind} rule`,
          description: `Changes only the fields the body names. The new ${what} goes in \`regex\` or, as docs/contract.md (Admin API) has it, in \`ruleId\`; a \`ruleId\` equal to the rule's own id (the original's update body) changes no ${what}. A ${what} another rule has is 409.`,
          params: RuleIdParams,
          consumes: JSON_AND_FORM,
          body: Type.Object(
            {
              ruleId: Type.Optional(Word(`The new ${what}; the rule's own id here names no ${what}`)),
              regex: Type.Optional(Word(`The new ${what}`)),
              ...(kind === 'blacklist' ? { isMatchExactWord: Flag('Defaults to false when a new word is given') } : {}),
              isEnabled: Flag('A disabled rule is kept but not enforced'),
            },
            {
              examples: [
                { regex: examples[1], isEnabled: true },
                { ruleId: RULE_ID_EXAMPLES[0], isEnabled: false },
              ],
            },
          ),
          response: answers(ruleAnswerOf(record), { extraErrors: [409] }),
        },
      },
      async (request) => {
        const body = request.body as RuleUpdateBody;
        const changes: RuleChanges = { ...wordOf(body, request.params.ruleId), isMatchExactWord: body.isMatchExactWord, isEnabled: body.isEnabled };
        return { status: 'success' as const, data: present(await rules.update(kind, request.params.ruleId, changes)) };
      },
    );
  }
  registerRuleTestRoute(app, rules);
}

const RuleTestBody = Type.Object(
  { text: Type.String({ maxLength: MAX_TEXT_LENGTH, description: 'A message text, checked as a text message would be' }) },
  { examples: [{ text: 'The leak is at https://elsewhere.example/x' }] },
);

const RuleTestAnswer = Type.Object(
  {
    allowed: Type.Boolean({ description: 'Whether a text message with this text would be taken' }),
    matched: Type.Array(
      Type.Object({
        ruleId: Type.Union([Type.String(), Type.Null()], { description: 'The blacklist rule; null for a link no whitelist rule allows' }),
        list: Type.Union([Type.Literal('blacklist'), Type.Literal('whitelist')]),
        word: Type.String({ description: 'The blacklisted word as its rule has it, or the link that is not whitelisted' }),
      }),
      { description: 'Every enabled rule the text breaks: blacklisted words oldest rule first, then links in text order' },
    ),
  },
  {
    description: 'What a send would say of the text',
    examples: [
      {
        allowed: false,
        matched: [
          { ruleId: RULE_ID_EXAMPLES[0], list: 'blacklist', word: 'leak' },
          { ruleId: null, list: 'whitelist', word: 'https://elsewhere.example/x' },
        ],
      },
    ],
  },
);

/** POST /rules/test: the rules' answer to a text, without sending anything. */
function registerRuleTestRoute(app: TypedApp, rules: RulesService): void {
  app.post(
    '/rules/test',
    {
      config: networkAdmins('moderation rules'),
      schema: {
        tags: ['blacklist', 'whitelist'],
        summary: 'Test a text against the moderation rules',
        description:
          'Checks `text` as sending it in a text message would (the same blacklist matching, with its folding and word boundaries, and the same whitelist of links) ' +
          'and lists every enabled rule it breaks. Nothing is stored or sent.',
        consumes: JSON_AND_FORM,
        body: RuleTestBody,
        response: answers(RuleTestAnswer),
      },
    },
    async (request) => rules.test(request.body.text),
  );
}
