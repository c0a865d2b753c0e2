/** One schema validation problem, as Ajv reports it. */
export interface SchemaIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  'date-time': 'a date and time (ISO 8601, e.g. 2024-05-01T12:00:00Z)',
  date: 'a date (YYYY-MM-DD)',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  email: 'an email address',
  uuid: 'a UUID',
};

/** What a few of the API's patterns mean, found by a fragment of each (shared/schemas.ts, the bot topics). */
const PATTERN_MEANINGS: Array<[fragment: string, meaning: string]> = [
  ['\\s/?#%', 'must not contain whitespace, /, ?, #, %, \\ or control characters, nor be . or ..'],
  ['^\\S+$', 'must not contain whitespace'],
  ['^[0-9a-f]+$', 'must be lowercase hexadecimal'],
];

const plural = (count: unknown, one: string, many: string): string => `${String(count)} ${count === 1 ? one : many}`;

function typeMessage(expected: unknown): string {
  const names = String(expected)
    .split(',')
    .map((type) => TYPE_NAMES[type] ?? type);
  return `must be ${names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0]}`;
}

function patternMessage(pattern: unknown): string {
  const text = String(pattern);
  return PATTERN_MEANINGS.find(([fragment]) => text.includes(fragment))?.[1] ?? `must match the pattern ${text}`;
}

/** Bounds on lengths, counts and values, said as a person would. */
function boundMessage(issue: SchemaIssue): string | null {
  const limit = issue.params.limit;
  switch (issue.keyword) {
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')} long`;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must hold at least ${plural(limit, 'item', 'items')}`;
    case 'maxItems':
      return `must hold at most ${plural(limit, 'item', 'items')}`;
    case 'minProperties':
      return `must hold at least ${plural(limit, 'key', 'keys')}`;
    case 'maxProperties':
      return `must hold at most ${plural(limit, 'key', 'keys')}`;
    case 'minimum':
      return `must be at least ${String(limit)}`;
    case 'maximum':
      return `must be at most ${String(limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(limit)}`;
    default:
      return null;
  }
}

/**
 * A readable sentence (without its field, which precedes it) for one Ajv issue: "is required", "must
 * be a whole number", "must be one of a, b". Keywords without their own wording keep Ajv's message.
 */
export function describeIssue(issue: SchemaIssue): string {
  const { params } = issue;
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      return typeMessage(params.type);
    case 'enum':
      return Array.isArray(params.allowedValues) ? `must be one of ${params.allowedValues.map(String).join(', ')}` : 'is not an accepted value';
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `must be ${FORMAT_NAMES[String(params.format)] ?? `a valid ${String(params.format)}`}`;
    case 'pattern':
      return patternMessage(params.pattern);
    case 'additionalProperties':
      return `has an unknown field ${JSON.stringify(params.additionalProperty)}`;
    case 'anyOf':
    case 'oneOf':
      return 'does not have any of the accepted forms';
    default:
      return boundMessage(issue) ?? issue.message ?? 'is invalid';
  }
}
