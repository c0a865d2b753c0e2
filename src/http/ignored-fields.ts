import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * Unknown body fields are ignored (docs/contract.md, Requests), so the original's clients, which send
 * fields Parley does not use, keep working. A misspelt field (`emial`) would be ignored silently too:
 * the answer names what was ignored in `Parley-Ignored-Fields`, a comma-separated list of field paths
 * (`emial, options.limt, userIds[2].x`), on success and error alike.
 */
export const IGNORED_FIELDS_HEADER = 'parley-ignored-fields';

/** At most this many names are listed; `...` ends a longer list. */
const MAX_NAMES = 20;
/** Schemas are not walked deeper than this (forms nest at most 5 levels). */
const MAX_DEPTH = 8;

/** The fields a schema knows: an object's keys, an array's items, or null where anything goes. */
type Known = { keys: Map<string, Known> } | { items: Known } | null;

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  patternProperties?: unknown;
  items?: unknown;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

const typesOf = (schema: SchemaNode): string[] => (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]);

/** A key known by either side is known; a side where anything goes makes the whole open. */
function merge(a: Known, b: Known): Known {
  if (a === null || b === null) return null;
  if ('keys' in a && 'keys' in b) {
    const keys = new Map(a.keys);
    for (const [key, known] of b.keys) keys.set(key, keys.has(key) ? merge(keys.get(key) ?? null, known) : known);
    return { keys };
  }
  if ('items' in a && 'items' in b) return { items: merge(a.items, b.items) };
  return null;
}

function knownOf(schema: SchemaNode | undefined, depth: number): Known {
  if (schema === undefined || typeof schema !== 'object' || depth > MAX_DEPTH) return null;
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (branches) {
    // `T | null` is T; other unions know the keys of every branch.
    const shaped = branches.filter((branch) => !(typesOf(branch).length === 1 && typesOf(branch)[0] === 'null'));
    if (shaped.length === 0) return null;
    return shaped.map((branch) => knownOf(branch, depth + 1)).reduce(merge);
  }
  const types = typesOf(schema);
  if (schema.properties !== undefined && (types.length === 0 || types.includes('object'))) {
    if (schema.additionalProperties || schema.patternProperties) return null;
    const keys = new Map<string, Known>();
    for (const [key, property] of Object.entries(schema.properties)) keys.set(key, knownOf(property, depth + 1));
    return { keys };
  }
  if (types.includes('array') && typeof schema.items === 'object' && schema.items !== null && !Array.isArray(schema.items)) {
    const items = knownOf(schema.items as SchemaNode, depth + 1);
    return items === null ? null : { items };
  }
  return null;
}

/** The paths of the body's fields its schema does not know, at most MAX_NAMES + 1. */
function ignoredIn(value: unknown, known: Known, path: string, found: string[]): void {
  if (known === null || found.length > MAX_NAMES || value === null || typeof value !== 'object') return;
  if ('items' in known) {
    if (!Array.isArray(value)) return;
    for (let index = 0; index < value.length && found.length <= MAX_NAMES; index++) ignoredIn(value[index], known.items, `${path}[${index}]`, found);
    return;
  }
  if (Array.isArray(value)) return;
  for (const key of Object.keys(value)) {
    const name = path === '' ? key : `${path}.${key}`;
    const child = known.keys.get(key);
    if (child === undefined) found.push(name);
    else ignoredIn((value as Record<string, unknown>)[key], child, name, found);
    if (found.length > MAX_NAMES) return;
  }
}

/** Longer names are cut here (and end in `...`): a hostile body must not make a huge header. */
const MAX_NAME_LENGTH = 64;

/** A header value is visible ASCII: anything else in a name is percent-encoded (UTF-8), as are `,` and `%`. */
function encodeName(name: string): string {
  const cut = name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}...` : name;
  return cut.replace(/[^\x21-\x7e]|[,%]/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      // A lone surrogate (cut in half above) has no UTF-8 form.
      return '%EF%BF%BD';
    }
  });
}

/** The header's value for a body, or null when the schema knows every field. */
export function ignoredFieldsOf(body: unknown, known: Known): string | null {
  const found: string[] = [];
  ignoredIn(body, known, '', found);
  if (found.length === 0) return null;
  const listed = found.slice(0, MAX_NAMES).map(encodeName);
  if (found.length > MAX_NAMES) listed.push('...');
  return listed.join(', ');
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/**
 * For `onRoute`: a route whose body schema lists its fields gets a preValidation hook, last in its
 * list (after a multipart body is read), that names the fields the body has and the schema does not.
 * Before validation, so a 422 for a missing `email` also says that `emial` was ignored. Routes
 * without a body, or whose body takes any field, get nothing.
 */
export function reportIgnoredFields(route: RouteOptions): void {
  const known = knownOf(route.schema?.body as SchemaNode | undefined, 0);
  if (known === null) return;
  // Callback-style: it runs on every request of the route.
  const hook: Hook = (request, reply, done) => {
    const value = ignoredFieldsOf(request.body, known);
    if (value !== null) reply.header(IGNORED_FIELDS_HEADER, value);
    done();
  };
  const existing = route.preValidation;
  route.preValidation = existing === undefined ? hook : [...(Array.isArray(existing) ? existing : [existing]), hook];
}
