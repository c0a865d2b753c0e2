/**
 * How a guide's printed sample is compared with what a command really prints. The samples are real
 * answers, so they carry ids, tokens and times that differ on every run; a value of such a generated
 * kind matches any value of the same kind. Everything else must be equal, except where the sample
 * writes `…`, which stands for any text (a whole value written "…" matches any value). Objects may
 * carry more fields than the sample shows; arrays must have the sample's length.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const GENERATED_KINDS: [string, RegExp][] = [
  ['object id', /^[0-9a-f]{24}$/],
  ['ISO time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/],
  ['millisecond time', /^\d{13}$/],
  // Tokens, secrets, codes and JWTs: long runs of base64url text (told from words by the mix below).
  ['token', /^[A-Za-z0-9_.~+/=-]{20,}$/],
];

/** Random text mixes at least two of lower case, upper case and digits; a name such as DELETE_MESSAGE does not. */
const mixesClasses = (text: string) => [/[a-z]/, /[A-Z]/, /\d/].filter((pattern) => pattern.test(text)).length >= 2;

function kindOf(text: string): string | null {
  const kind = GENERATED_KINDS.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
  return kind === 'token' && !mixesClasses(text) ? null : kind;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether one printed word or string matches the sample's. */
export function scalarMatches(expected: string, actual: string): boolean {
  if (expected === '…') return true;
  if (expected.includes('…')) return new RegExp(`^${expected.split('…').map(escapeRegExp).join('[\\s\\S]*')}$`).test(actual);
  const kind = kindOf(expected);
  return kind !== null ? kindOf(actual) === kind : expected === actual;
}

/** The differences between a sample value and the real one, as paths with what was expected. */
export function jsonDifferences(expected: Json, actual: Json, path = '$'): string[] {
  if (expected === '…') return [];
  if (typeof expected === 'string') {
    return typeof actual === 'string' && scalarMatches(expected, actual)
      ? []
      : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (typeof expected === 'number') {
    // Times in seconds or milliseconds since 1970; no count in a guide comes near.
    const ok = typeof actual === 'number' && (expected >= 1e9 ? actual >= 1e9 : expected === actual);
    return ok ? [] : [`${path}: expected ${expected}, got ${JSON.stringify(actual)}`];
  }
  if (expected === null || typeof expected === 'boolean') {
    return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return [`${path}: expected an array of ${expected.length}, got ${JSON.stringify(actual)?.slice(0, 300)}`];
    }
    return expected.flatMap((item, index) => jsonDifferences(item, actual[index] as Json, `${path}[${index}]`));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
  return Object.entries(expected).flatMap(([key, value]) =>
    key in actual ? jsonDifferences(value, actual[key] as Json, `${path}.${key}`) : [`${path}: no field ${key}`],
  );
}

/** The JSON values of a text that holds several, one after the other (curl prints no newline after a body). */
export function jsonValuesOf(text: string): Json[] {
  const values: Json[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
      if (depth === 0 && !inString) values.push(JSON.parse(text.slice(start, index + 1)) as Json);
      continue;
    }
    if (char === '"') {
      inString = true;
      if (depth === 0) start = index;
    } else if (char === '{' || char === '[') {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) values.push(JSON.parse(text.slice(start, index + 1)) as Json);
    } else if (depth === 0 && char !== undefined && /\S/.test(char)) {
      const scalar = /^(-?\d+(\.\d+)?|true|false|null)/.exec(text.slice(index));
      if (scalar === null) throw new Error(`not JSON at ${JSON.stringify(text.slice(index, index + 60))}`);
      values.push(JSON.parse(scalar[0]) as Json);
      index += scalar[0].length - 1;
    }
  }
  return values;
}

/** Why the printed text does not match the sample (empty: it does). */
export function outputDifferences(format: 'json' | 'text', expected: string, printed: string): string[] {
  if (format === 'json') {
    const wanted = jsonValuesOf(expected);
    let got: Json[];
    try {
      got = jsonValuesOf(printed);
    } catch (error) {
      return [`the output is not JSON: ${(error as Error).message}`];
    }
    if (got.length !== wanted.length) return [`expected ${wanted.length} JSON value(s), got ${got.length}`];
    return wanted.flatMap((value, index) => jsonDifferences(value, got[index] as Json, `$${index + 1}`));
  }
  return textDifferences(expected, printed);
}

/**
 * A sample line as a pattern over a printed line: words separated by any white space, `…` any text
 * (spaces included), a generated value any value of its kind.
 */
function linePattern(line: string): (printed: string) => boolean {
  const kinds: string[] = [];
  const parts = line
    .trim()
    .split(/\s+/)
    .map((word) => {
      if (word === '…') return '.*?';
      if (word.includes('…')) return word.split('…').map(escapeRegExp).join('.*?');
      if (kindOf(word) !== null) {
        kinds.push(word);
        return '(\\S+)';
      }
      return escapeRegExp(word);
    });
  const pattern = new RegExp(`^${parts.join('\\s+')}$`);
  return (printed) => {
    const match = pattern.exec(printed.trim());
    return match !== null && kinds.every((word, index) => scalarMatches(word, match[index + 1] as string));
  };
}

/** Each sample line must match a printed line, in order. */
function textDifferences(expected: string, printed: string): string[] {
  const got = printed.split('\n');
  let from = 0;
  for (const line of expected.split('\n').filter((text) => text.trim() !== '')) {
    const matches = linePattern(line);
    const found = got.findIndex((candidate, index) => index >= from && matches(candidate));
    if (found < 0) return [`no line like ${JSON.stringify(line)} (in order)`];
    from = found + 1;
  }
  return [];
}
