import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

/**
 * JSON Schema tools for the tests that hold the declared API schemas to the real answers and to
 * their own examples: one Ajv (JSON Schema 2020-12, formats checked, no type coercion) and the
 * strict copy of a schema.
 */
export type JsonSchema = Record<string, unknown>;

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS with `exports.default`: under NodeNext its default import is the module object.
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? (formatsModule as unknown as FormatsPlugin)) as FormatsPlugin;

/** Not strict mode: OpenAPI adds keywords Ajv does not know (example, discriminator, xml). */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false, useDefaults: false, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

export function isObject(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SCHEMA_KEYWORDS = ['not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems', 'unevaluatedItems', 'items'];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Where the properties an object may hold can come from beside `properties`. */
const COMPOSING_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'if', '$ref', 'dependentSchemas'];

function isObjectSchema(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) return true;
  return schema.type === undefined && (isObject(schema.properties) || isObject(schema.patternProperties));
}

/**
 * A copy of a schema in which every object schema that says nothing about other properties allows
 * none: a presenter that emits a field its schema forgot (which fast-json-stringify would drop from
 * the wire without a word) fails validation. Where the properties may also come from composed
 * schemas (allOf, anyOf, $ref...), `unevaluatedProperties` is the keyword that sees them; the
 * members of an allOf are left open, since each describes only a part of the object.
 */
export function strictCopy(schema: unknown, insideAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => strictCopy(item, insideAllOf));
  if (!isObject(schema)) return schema;
  const copy: JsonSchema = { ...schema };
  for (const keyword of SCHEMA_KEYWORDS) {
    if (isObject(copy[keyword])) copy[keyword] = strictCopy(copy[keyword]);
  }
  if (isObject(copy.additionalProperties)) copy.additionalProperties = strictCopy(copy.additionalProperties);
  if (isObject(copy.unevaluatedProperties)) copy.unevaluatedProperties = strictCopy(copy.unevaluatedProperties);
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = copy[keyword];
    if (Array.isArray(list)) copy[keyword] = list.map((item) => strictCopy(item, keyword === 'allOf'));
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = copy[keyword];
    if (isObject(map)) copy[keyword] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, strictCopy(item)]));
  }
  const saysNothing = copy.additionalProperties === undefined && copy.unevaluatedProperties === undefined;
  if (!insideAllOf && saysNothing && isObjectSchema(copy)) {
    if (COMPOSING_KEYWORDS.some((keyword) => copy[keyword] !== undefined)) copy.unevaluatedProperties = false;
    else copy.additionalProperties = false;
  }
  return copy;
}

/** The direct subschemas of a schema, each with its JSON pointer step (`properties/id`, `anyOf/0`). */
export function subschemasOf(schema: JsonSchema): Array<[string, JsonSchema]> {
  const out: Array<[string, JsonSchema]> = [];
  for (const keyword of [...SCHEMA_KEYWORDS, 'additionalProperties', 'unevaluatedProperties']) {
    const value = schema[keyword];
    if (isObject(value)) out.push([keyword, value]);
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((item, index) => isObject(item) && out.push([`${keyword}/${index}`, item]));
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (isObject(map)) for (const [name, item] of Object.entries(map)) if (isObject(item)) out.push([`${keyword}/${name}`, item]);
  }
  return out;
}

export function describeErrors(errors: ErrorObject[] | null | undefined, limit = 6): string {
  const lines = (errors ?? []).slice(0, limit).map((error) => {
    const where = error.instancePath === '' ? '(root)' : error.instancePath;
    const extra = error.keyword === 'additionalProperties' ? ` "${String((error.params as { additionalProperty?: unknown }).additionalProperty)}"` : '';
    const unevaluated =
      error.keyword === 'unevaluatedProperties' ? ` "${String((error.params as { unevaluatedProperty?: unknown }).unevaluatedProperty)}"` : '';
    return `${where} ${error.message ?? error.keyword}${extra}${unevaluated}`;
  });
  const more = (errors?.length ?? 0) > limit ? `; and ${(errors?.length ?? 0) - limit} more` : '';
  return lines.join('; ') + more;
}

/**
 * Compiled validators of strict copies, by schema object and by text: route schemas are module
 * constants shared by every app a test process builds, and many are the same text (the error
 * envelope under every status of every route), so each is compiled once. A schema Ajv refuses is
 * answered as that problem.
 */
export function validatorCache(ajv: Ajv2020 = createAjv()) {
  const byObject = new WeakMap<object, ValidateFunction | string>();
  const byText = new Map<string, ValidateFunction | string>();
  return (schema: JsonSchema): ValidateFunction | string => {
    let entry = byObject.get(schema);
    if (entry !== undefined) return entry;
    const strict = strictCopy(schema) as JsonSchema;
    const text = JSON.stringify(strict);
    entry = byText.get(text);
    if (entry === undefined) {
      try {
        entry = ajv.compile(strict);
      } catch (error) {
        entry = `the schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
      }
      byText.set(text, entry);
    }
    byObject.set(schema, entry);
    return entry;
  };
}

/** Paths where two JSON values differ (at most `limit`), for a message that names them. */
export function jsonDifferences(expected: unknown, actual: unknown, path = '', limit = 5): string[] {
  if (Object.is(expected, actual)) return [];
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects = isObject(expected) && isObject(actual);
  if (!bothArrays && !bothObjects) return [`${path || '(root)'}: ${JSON.stringify(expected)?.slice(0, 80)} became ${JSON.stringify(actual)?.slice(0, 80)}`];
  const left = expected as Record<string, unknown>;
  const right = actual as Record<string, unknown>;
  const out: string[] = [];
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (out.length >= limit) break;
    const where = `${path}/${key}`;
    if (!(key in right)) out.push(`${where}: dropped from the wire`);
    else if (!(key in left)) out.push(`${where}: appeared on the wire`);
    else out.push(...jsonDifferences(left[key], right[key], where, limit - out.length));
  }
  return out.slice(0, limit);
}
