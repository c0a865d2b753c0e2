import { placesLookedUp, publishedFiles, schemaAt, useSource } from '../helpers/published-shapes.js';
import { isObject } from '../helpers/json-schema.js';
import { DIFFERENCES } from './original-answers.differences.js';
import { canonical, placesReached } from './original-answers.judge.js';
import { ROUTE_CASES } from './original-answers.routes.js';

/**
 * Writes the answer shapes the compatibility tests need (test/compat/original-shapes.json) from a
 * folder of the original's published files: every place the tests look up, at the same address,
 * with what a shape is made of (types, properties, required, nullable, enums, `$ref`s) and without
 * the prose and examples around it. Descriptions stay only on response objects, where the judge
 * quotes the original's "OK" for routes that document no JSON answer.
 */
export const ERROR_SCHEMA = '6e3323f/global/error.yaml#/Error';

const PROSE = new Set(['example', 'examples', 'externalDocs', 'xml', 'summary', 'tags', 'operationId', 'x-codeSamples']);
const SCHEMA_WORDS = ['type', 'properties', 'items', 'allOf', 'anyOf', 'oneOf', '$ref', 'enum'];
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function shapeOf(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return node.map((item) => shapeOf(item, ''));
  if (!isObject(node)) return node;
  // An operation is judged by its answers alone.
  if (METHODS.has(key) && isObject(node.responses)) return { responses: shapeOf(node.responses, 'responses') };
  const names = key === 'properties' || key === 'responses' || key === 'schemas' || key === 'paths';
  const isSchema = SCHEMA_WORDS.some((word) => word in node);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node)) {
    if (!names && PROSE.has(name)) continue;
    if (!names && name === 'description' && isSchema) continue;
    out[name] = shapeOf(value, name);
  }
  return out;
}

/** Sets `value` at `steps` inside `root`, making the objects on the way. */
function placeInto(root: Record<string, unknown>, steps: readonly string[], value: unknown): void {
  let node = root;
  steps.forEach((step, index) => {
    if (index === steps.length - 1) node[step] = value;
    else {
      if (!isObject(node[step])) node[step] = {};
      node = node[step] as Record<string, unknown>;
    }
  });
}

function nodeAt(document: unknown, steps: readonly string[]): unknown {
  let node = document;
  for (const step of steps) node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[step] : undefined;
  return node;
}

export interface Shapes {
  about: string;
  files: Record<string, Record<string, unknown>>;
}

/** The shapes file's content, read from the published files in `folder`. */
export function shapesFrom(folder: string): Shapes {
  const published = publishedFiles(folder);
  useSource(published);
  for (const routeCase of ROUTE_CASES) placesReached(routeCase, DIFFERENCES);
  for (const difference of DIFFERENCES) for (const address of Object.values(difference.heldTo ?? {})) canonical(address);
  schemaAt(ERROR_SCHEMA);
  const files: Record<string, Record<string, unknown>> = {};
  const read = new Map<string, unknown>();
  // Shorter paths first, so a place inside one already copied overwrites nothing it holds.
  const places = [...placesLookedUp()].sort((a, b) => a[1].length - b[1].length);
  for (const [file, steps] of places) {
    if (!read.has(file)) read.set(file, published.read(file));
    files[file] ??= {};
    const target = files[file];
    if (steps.length === 0) Object.assign(target, shapeOf(read.get(file), ''));
    else if (nodeAt(target, steps) === undefined) placeInto(target, steps, shapeOf(nodeAt(read.get(file), steps), steps.at(-1) ?? ''));
  }
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  return {
    about:
      "The answer shapes of the original service's published Admin API v2 OpenAPI files (AmityCo/apidocs at 686a8b6, 2021, and 6e3323f, 2023): field names, types and references only, at the places the compatibility tests look up. Written by `npm run compat:shapes -- <folder of the published files>`.",
    files: sorted,
  };
}
