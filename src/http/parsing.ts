import type { FastifyInstance, FastifyRequest } from 'fastify';
import qs from 'qs';
import { AppError } from '../shared/errors.js';
import { markTextBody } from './validation.js';

/**
 * Request parsing of docs/contract.md, Requests: forms and query strings with nested keys and arrays
 * (`userIds[]=a`, `options[limit]=5`), JSON everywhere, and JSON held in a form field for an object.
 */
const QS_OPTIONS: qs.IParseOptions = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 2000,
  allowPrototypes: false,
  plainObjects: true,
};

export function parseQueryString(text: string): Record<string, unknown> {
  return qs.parse(text, QS_OPTIONS);
}

export function installBodyParsers(app: FastifyInstance): void {
  // Only JSON, forms (and multipart where a route takes files) are API bodies; plain text is a
  // wrong content type (400000), not a string to validate.
  app.removeContentTypeParser('text/plain');
  // A route that takes no body (POST /notifications/last-read, channel close...) ignores an empty one
  // even when a client library labels it application/json (HTTP clients set up for JSON often do);
  // everywhere else Fastify's own parser answers it (400000, "Body cannot be empty").
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const bodySchema = request.routeOptions.schema?.body as SchemaNode | undefined;
    if (body.length === 0 && (bodySchema === undefined || acceptsEmptyBody(bodySchema))) {
      done(null, undefined);
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    parseJson(request, text, (error, parsed) => {
      if (error) return done(error, undefined);
      // JSON writes a lone surrogate only escaped (raw, it is not UTF-8): one search of the text, and
      // the walk only when one may be there. Stored, it became U+FFFD: a thread id answered as sent
      // could never be listed by it.
      if (SURROGATE_ESCAPE.test(text)) {
        const field = fieldWhere(parsed, 'body', hasLoneSurrogate);
        if (field !== null) return done(textError(field, LONE_SURROGATE_MESSAGE), undefined);
      }
      // JSON writes a NUL only escaped: one search of the text, and the walk only when it is there.
      if (!text.includes('\\u0000')) return done(null, parsed);
      doneWithoutNul(parsed, done);
    });
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    let parsed: Record<string, unknown>;
    try {
      parsed = parseQueryString(typeof body === 'string' ? body : body.toString('utf8'));
    } catch {
      done(new AppError('badRequest', 'Form body could not be parsed.'), undefined);
      return;
    }
    markTextBody(parsed);
    doneWithoutNul(parsed, done);
  });
  // Callback-style rather than async: it runs on every request, and an async hook costs a promise
  // and a microtask hop (seen in the message create profile).
  app.addHook('preValidation', (request, _reply, done) => {
    // No body, or an empty one, where every field is optional (POST /api/v2/channels lists all
    // channels): the empty object, as an empty form already is, not 422 "body must be object".
    if (request.body == null && acceptsEmptyBody(request.routeOptions.schema?.body as SchemaNode | undefined)) request.body = {};
    try {
      decodeJsonFields(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

/** A body schema that is an object with no required field. */
function acceptsEmptyBody(schema: SchemaNode | undefined): boolean {
  return schema !== undefined && schema.type === 'object' && (schema.required === undefined || schema.required.length === 0);
}

interface SchemaNode {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

function expectsObject(schema: SchemaNode | undefined): boolean {
  if (!schema) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || types.includes('array')) return true;
  return (schema.anyOf ?? []).some(expectsObject);
}

/** The properties of an object schema that expect an object or array, found once per schema. */
const objectFieldsBySchema = new WeakMap<SchemaNode, readonly string[]>();
function objectFieldsOf(schema: SchemaNode): readonly string[] {
  let fields = objectFieldsBySchema.get(schema);
  if (fields === undefined) {
    fields = Object.entries(schema.properties ?? {})
      .filter(([, propertySchema]) => expectsObject(propertySchema))
      .map(([key]) => key);
    objectFieldsBySchema.set(schema, fields);
  }
  return fields;
}

/** `metadata={"a":1}` in a form or query string is accepted as the object it spells. */
function decodeJsonFieldsOf(value: unknown, schema: SchemaNode, root: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  for (const key of objectFieldsOf(schema)) {
    const field = record[key];
    if (typeof field !== 'string') continue;
    const trimmed = field.trim();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) continue;
    let decoded: unknown;
    try {
      decoded = JSON.parse(trimmed);
    } catch {
      // Left as a string: validation then names the field precisely.
      continue;
    }
    // JSON in a form field may spell a NUL or a lone surrogate as an escape the form's own check
    // could not see.
    const fault = textFaultIn(decoded, `${root}.${key}`);
    if (fault !== null) throw fault;
    record[key] = decoded;
  }
}

/**
 * Runs on every request, so it allocates nothing when there is nothing to decode: the fields to look at
 * are found once per schema, and the query string is not parsed (Fastify parses it on first read) for a
 * route that declares none.
 */
function decodeJsonFields(request: FastifyRequest): void {
  const schema = request.routeOptions.schema as { body?: SchemaNode; querystring?: SchemaNode } | undefined;
  if (!schema) return;
  if (schema.querystring && request.raw.url?.includes('%00')) {
    const field = fieldWithNul(request.query, 'querystring');
    if (field !== null) throw nulError(field);
  }
  if (schema.body?.properties) decodeJsonFieldsOf(request.body, schema.body, 'body');
  if (schema.querystring?.properties) decodeJsonFieldsOf(request.query, schema.querystring, 'querystring');
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const hasNul = (text: string): boolean => text.includes('\u0000');
const LONE_SURROGATE_MESSAGE = 'must be well-formed Unicode (a lone surrogate is not)';
const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/**
 * The path of the first string or key of a parsed body or query that `bad` finds fault with, or null.
 * Keys count: they are stored too (metadata, custom data). Iterative, so deep nesting cannot overflow.
 */
function fieldWhere(value: unknown, root: string, bad: (text: string) => boolean): string | null {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: root }];
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: unknown; path: string };
    if (typeof node === 'string') {
      if (bad(node)) return path;
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) stack.push({ node: node[index], path: `${path}[${index}]` });
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (bad(key)) return `${path}.${key.replaceAll('\u0000', '\\u0000')}`;
        stack.push({ node: item, path: `${path}.${key}` });
      }
    }
  }
  return null;
}

/**
 * The path of the first string or key holding a NUL character, or null. No text needs one, and
 * PostgreSQL refuses it in a text column and in JSON: a post, a display name or a search with a NUL
 * answered 500 from deep in a store.
 */
export function fieldWithNul(value: unknown, root: string): string | null {
  return fieldWhere(value, root, hasNul);
}

/** Hands a parsed body on, or the 422 naming its first field with a NUL. */
function doneWithoutNul(parsed: unknown, done: (error: Error | null, body?: unknown) => void): void {
  const field = fieldWithNul(parsed, 'body');
  if (field === null) done(null, parsed);
  else done(nulError(field), undefined);
}

/** The 422 for the first string or key of decoded JSON that holds a NUL or a lone surrogate, or null. */
export function textFaultIn(decoded: unknown, root: string): AppError | null {
  const withNul = fieldWithNul(decoded, root);
  if (withNul !== null) return nulError(withNul);
  const lone = fieldWhere(decoded, root, hasLoneSurrogate);
  return lone === null ? null : textError(lone, LONE_SURROGATE_MESSAGE);
}

export function nulError(field: string): AppError {
  return textError(field, 'must not contain a NUL character');
}

function textError(field: string, message: string): AppError {
  return new AppError('parameters', `${field} ${message}.`, { detail: [{ field, message }] });
}
