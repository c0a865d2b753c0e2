import type { RegisteredRoute } from '../../src/app.js';
import { createAjv, describeErrors, isObject, type JsonSchema, subschemasOf, validatorCache } from '../helpers/json-schema.js';
import { bodyMediaTypes, NON_JSON_SUCCESS, operationKey, type RequiredError, requiredErrors } from './route-kinds.js';

/** The parts of an OpenAPI 3.1 document the checks read. */
export interface MediaObject {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface ResponseObject {
  description?: string;
  content?: Record<string, MediaObject>;
  headers?: Record<string, unknown>;
}
export interface OperationObject {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, MediaObject> };
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export const CHECKS = ['listed', 'described', 'success', 'errors', 'examples', 'example-validity', 'request-body'] as const;
export type CheckName = (typeof CHECKS)[number];
export interface Problem {
  operation: string;
  check: CheckName;
  message: string;
}

const ENVELOPE = { status: 'error', code: 400400, message: 'Channel not found.', data: { detail: [] } };

/** A schema with the document's `#/components/schemas/...` references written out (cycles cut at depth 20). */
export function inlineRefs(schema: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, depth));
  if (!isObject(schema) || depth > 20) return schema;
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  const { $ref: _ref, ...rest } = schema;
  const base = ref !== undefined && components[ref] ? { ...components[ref], ...rest } : schema;
  return Object.fromEntries(Object.entries(base).map(([key, value]) => [key, inlineRefs(value, components, depth + 1)]));
}

/** The document repeats its schemas (the envelope under every error of every operation): each is compiled once. */
const validatorFor = validatorCache(createAjv());

/** The errors of a value against the strict copy of a schema, or null when it matches. */
function mismatch(schema: JsonSchema, value: unknown): string | null {
  const validate = validatorFor(schema);
  if (typeof validate === 'string') return validate;
  return validate(value) ? null : describeErrors(validate.errors);
}

const jsonMedia = (content: Record<string, MediaObject> | undefined): MediaObject | undefined =>
  Object.entries(content ?? {}).find(([type]) => type.split(';')[0]?.trim() === 'application/json')?.[1];
const hasExample = (media: MediaObject): boolean => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;
const examplesOf = (media: MediaObject): unknown[] => [
  ...(media.example !== undefined ? [media.example] : []),
  ...Object.values(media.examples ?? {}).map((entry) => entry.value),
];

function successProblems(key: string, operation: OperationObject): string[] {
  const responses = operation.responses ?? {};
  const exception = NON_JSON_SUCCESS[key];
  if (exception) {
    const response = responses[String(exception.status)];
    if (!response) return [`documents no ${exception.status} answer (${exception.reason})`];
    const problems: string[] = [];
    const media = exception.media;
    if (media && !Object.entries(response.content ?? {}).some(([type, item]) => media.test(type) && item.schema !== undefined)) {
      problems.push(`the ${exception.status} answer documents no body of type ${media.source} (${exception.reason})`);
    }
    if (exception.locationHeader && !Object.keys(response.headers ?? {}).some((name) => name.toLowerCase() === 'location')) {
      problems.push(`the ${exception.status} redirect documents no Location header`);
    }
    return problems;
  }
  const successes = Object.entries(responses).filter(([status]) => /^2(\d\d|XX)$/.test(status));
  if (successes.length === 0) return ['documents no 2xx answer'];
  return successes.filter(([, response]) => !jsonMedia(response.content)?.schema).map(([status]) => `the ${status} answer has no application/json schema`);
}

function errorProblems(required: RequiredError[], operation: OperationObject): string[] {
  const responses = operation.responses ?? {};
  const problems: string[] = [];
  const missing: string[] = [];
  for (const { statuses, body } of required) {
    const found = statuses.map(String).filter((status) => responses[status] !== undefined);
    if (found.length === 0) {
      missing.push(statuses.join(' or '));
      continue;
    }
    for (const status of found) {
      const content = responses[status]?.content;
      if (body === 'html') {
        if (!Object.keys(content ?? {}).some((type) => type.startsWith('text/html'))) problems.push(`the ${status} error documents no text/html page`);
        continue;
      }
      const schema = jsonMedia(content)?.schema;
      if (!schema) problems.push(`the ${status} error has no application/json schema`);
      else if (mismatch(schema, ENVELOPE) !== null || mismatch(schema, { status: 'success' }) === null)
        problems.push(`the ${status} error is not the error envelope`);
    }
  }
  if (missing.length > 0)
    problems.unshift(`documents no error answer ${missing.join(', ')} (${required[0]?.body === 'html' ? 'text/html pages' : 'the envelope'})`);
  return problems;
}

function exampleProblems(key: string, operation: OperationObject): string[] {
  const problems: string[] = [];
  if (!NON_JSON_SUCCESS[key]) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const media = jsonMedia(response.content);
      if (/^2/.test(status) && media?.schema && !hasExample(media)) problems.push(`the ${status} answer has no example`);
    }
  }
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    if (!hasExample(media)) problems.push(`the request body (${type}) has no example`);
  }
  return problems;
}

/** Examples nested in a schema (3.1 keeps `examples` arrays on properties), each against its own schema. */
function nestedExampleProblems(schema: JsonSchema, where: string, out: string[]): void {
  const nested = [...(Array.isArray(schema.examples) ? schema.examples : []), ...(schema.example !== undefined ? [schema.example] : [])];
  for (const example of nested) {
    const errors = mismatch(schema, example);
    if (errors !== null) out.push(`the example at ${where || '(root)'} does not match its schema: ${errors}`);
  }
  for (const [step, subschema] of subschemasOf(schema)) nestedExampleProblems(subschema, `${where}/${step}`, out);
}

function exampleValidityProblems(operation: OperationObject): string[] {
  const problems: string[] = [];
  const media: Array<[string, MediaObject]> = [
    ...Object.entries(operation.requestBody?.content ?? {}).map(([type, item]): [string, MediaObject] => [`the request body (${type})`, item]),
    ...Object.entries(operation.responses ?? {}).flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).map(([type, item]): [string, MediaObject] => [`the ${status} answer (${type})`, item]),
    ),
  ];
  for (const [label, item] of media) {
    if (!item.schema) continue;
    for (const example of examplesOf(item)) {
      const errors = mismatch(item.schema, example);
      if (errors !== null) problems.push(`the example of ${label} does not match its schema: ${errors}`);
    }
    const nested: string[] = [];
    nestedExampleProblems(item.schema, '', nested);
    problems.push(...nested.map((message) => `${label}: ${message}`));
  }
  return problems;
}

function requestBodyProblems(route: RegisteredRoute, operation: OperationObject): string[] {
  const expected = bodyMediaTypes(route);
  if (expected === null) return [];
  const content = operation.requestBody?.content;
  if (!content) return [`documents no request body (it takes ${expected.join(' and ')})`];
  const documented = Object.keys(content).map((type) => type.split(';')[0]?.trim());
  return expected.filter((type) => !documented.includes(type)).map((type) => `the request body is not documented as ${type}`);
}

/** Every problem of one operation, with the route it was registered as. */
export function operationProblems(route: RegisteredRoute, raw: OperationObject, components: Record<string, JsonSchema>): Problem[] {
  const operation = inlineRefs(raw, components) as OperationObject;
  const key = operationKey(route.method, route.url);
  const found: Array<[CheckName, string[]]> = [
    ['described', (operation.summary ?? '').trim() === '' && (operation.description ?? '').trim() === '' ? ['has no summary or description'] : []],
    ['success', successProblems(key, operation)],
    ['errors', errorProblems(requiredErrors(route), operation)],
    ['examples', exampleProblems(key, operation)],
    ['example-validity', exampleValidityProblems(operation)],
    ['request-body', requestBodyProblems(route, operation)],
  ];
  return found.flatMap(([check, messages]) => messages.map((message) => ({ operation: key, check, message })));
}
