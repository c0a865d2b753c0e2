import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { createAjv, describeErrors, isObject, type JsonSchema } from './json-schema.js';

/**
 * The original service's published Admin API v2 answer shapes, as the compatibility tests hold
 * Parley's real answers to them. They are read from `test/compat/original-shapes.json`, which the
 * repository carries: the field names, types, nullability and `$ref`s of the original's split OpenAPI
 * 3.0 files (2021 686a8b6 and 2023 6e3323f), without their prose and examples, at the same places
 * as in those files. `npm run compat:shapes -- <folder>` writes it again from a copy of the published
 * files, and original-shapes.test.ts checks that it still matches such a copy where one is at hand.
 * The `$ref`s name other files ("../../schema/user.yaml#/User") or the same one ("#/ChannelType");
 * they are resolved and written out as JSON Schema, so that Ajv can hold Parley's answers to the
 * shapes the original's clients parse.
 *
 * Every place in those files has an address, `<version>/<file>#<JSON pointer>`, e.g.
 * `686a8b6/schema/channel.yaml#/ChannelV1/properties/muteTimeout`: the deliberate differences of a
 * test name the places they loosen by these addresses.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ORIGINAL_SHAPES_FILE = path.join(repoRoot, 'test/compat/original-shapes.json');

/** Where the documents come from: the carried shapes, or (to write them again) a folder of the published files. */
interface DocumentSource {
  has(file: string): boolean;
  read(file: string): unknown;
}

interface ShapesFile {
  about: string;
  files: Record<string, unknown>;
}

function carriedShapes(): DocumentSource {
  let files: Record<string, unknown> | undefined;
  const all = (): Record<string, unknown> => {
    files ??= (JSON.parse(fs.readFileSync(ORIGINAL_SHAPES_FILE, 'utf8')) as ShapesFile).files;
    return files;
  };
  return { has: (file) => Object.hasOwn(all(), file), read: (file) => all()[file] };
}

/** The published split YAML files in a folder laid out as `<version>/<file>`. */
export function publishedFiles(folder: string): DocumentSource {
  return {
    has: (file) => fs.existsSync(path.join(folder, file)),
    read: (file) => parse(fs.readFileSync(path.join(folder, file), 'utf8')) as unknown,
  };
}

const CARRIED = carriedShapes();
let source: DocumentSource = CARRIED;
/** Every place looked up since the last `useSource`, as `[file, steps]`: what the carried shapes must hold. */
let lookedUp: Array<[string, string[]]> = [];

/** Reads documents from another source from now on (the shapes writer reads the published files); none: the carried shapes. */
export function useSource(next: DocumentSource | undefined): void {
  source = next ?? CARRIED;
  documents.clear();
  compiled.clear();
  lookedUp = [];
}

export const placesLookedUp = (): ReadonlyArray<readonly [string, readonly string[]]> => lookedUp;

/** 686a8b6: the v2 API as first published (2021). 6e3323f: the last version listing /api/v2/channels (2023). */
export const ORIGINAL_VERSIONS = ['686a8b6', '6e3323f'] as const;
export type OriginalVersion = (typeof ORIGINAL_VERSIONS)[number];

/** How an answer's schema is loosened or tightened on purpose; built by the test from its table of differences. */
export interface Leniency {
  /** Schemas (by address) that may also be null where the original types a value. */
  nullable: ReadonlySet<string>;
  /** Documented properties Parley does not send, by the address of the object schema that lists them. */
  omitted: ReadonlyMap<string, readonly string[]>;
}

export const NO_LENIENCY: Leniency = { nullable: new Set(), omitted: new Map() };

/**
 * A node and where it is. `address` names the file it was read from, so a difference names one place
 * whichever version reached it; `base` is the file as its version sees it, which its relative
 * `$ref`s are resolved against (a 2021 file read for the 2023 version still points into 2023's tree).
 */
interface Place {
  address: string;
  base: string;
  node: unknown;
}

const documents = new Map<string, unknown>();

/** `<version>/<file>`: the 2023 folder keeps only the files whose v2 shapes changed (SOURCES.md), so the others are read from 2021. */
function physicalFile(versionAndFile: string): string {
  const [version, ...rest] = versionAndFile.split('/');
  const file = rest.join('/');
  if (version === '6e3323f' && !source.has(versionAndFile)) return `686a8b6/${file}`;
  return versionAndFile;
}

function documentOf(file: string): unknown {
  let document = documents.get(file);
  if (document === undefined) {
    if (!source.has(file)) throw new Error(`${file}: no such file among the original's published API files`);
    document = source.read(file);
    documents.set(file, document);
  }
  return document;
}

const decodeStep = (step: string): string => step.replace(/~1/g, '/').replace(/~0/g, '~');
const encodeStep = (step: string): string => step.replace(/~/g, '~0').replace(/\//g, '~1');

/** The node at an address. A pointer may lack its leading slash (`api.yaml#query`, as swagger.yaml writes it). */
export function placeAt(address: string): Place {
  const [base = '', pointer = ''] = address.split('#');
  const file = physicalFile(base);
  const steps = pointer
    .replace(/^\//, '')
    .split('/')
    .filter((step) => step !== '')
    .map(decodeStep);
  lookedUp.push([file, steps]);
  let node = documentOf(file);
  for (const step of steps) {
    if (!isObject(node) && !Array.isArray(node)) throw new Error(`${address}: nothing at ${step}`);
    node = (node as Record<string, unknown>)[step];
  }
  if (node === undefined) throw new Error(`${address}: nothing there`);
  return { address: `${file}#/${steps.map(encodeStep).join('/')}`, base, node };
}

/** Where a `$ref` written in the file of `from` points. */
function referenced(from: Place, ref: string): Place {
  const [target = '', pointer = ''] = ref.split('#');
  const file = target === '' ? from.base : path.posix.normalize(path.posix.join(path.posix.dirname(from.base), target));
  return placeAt(`${file}#${pointer}`);
}

/** A place inside another: same file, one step further. */
const inside = (place: Place, step: string, node: unknown): Place => ({ address: `${place.address}/${step}`, base: place.base, node });

const SKIPPED = new Set(['nullable', 'example', 'examples', 'xml', 'discriminator', 'externalDocs', 'deprecated', 'readOnly', 'writeOnly']);

interface Conversion {
  leniency: Leniency;
  /** Every address written out, so a test can tell which differences reach which answer. */
  visited: Set<string>;
  /** Addresses being written out, to cut a schema that contains itself. */
  stack: string[];
}

function convertChild(key: string, place: Place, conversion: Conversion): unknown {
  const value = place.node;
  if (key === 'properties' && isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, convert(inside(place, encodeStep(name), child), conversion)]));
  }
  if (['items', 'not', 'additionalProperties'].includes(key) && isObject(value)) return convert(place, conversion);
  if (['allOf', 'anyOf', 'oneOf'].includes(key) && Array.isArray(value))
    return value.map((item, index) => convert(inside(place, String(index), item), conversion));
  // The original's File schema says `type: enum`, which is no JSON type: its values are strings.
  if (key === 'type' && value === 'enum') return 'string';
  return value;
}

/**
 * An OpenAPI 3.0 schema as JSON Schema: `$ref`s written out, `nullable` as "or null", and every
 * property the schema documents required unless the leniency names it omitted, so that a field Parley
 * renames or drops is caught (the original's schemas require almost nothing). `type: number` stays
 * as it is: JSON Schema's number takes integers too, which is what the original meant by it
 * (AdminUser.flagCount is a count). Properties the original does not document are allowed: its
 * clients ignore them.
 */
function convert(place: Place, conversion: Conversion): unknown {
  const node = place.node;
  if (!isObject(node)) return node;
  conversion.visited.add(place.address);
  if (conversion.stack.includes(place.address)) return {};
  conversion.stack.push(place.address);
  const nullable = node.nullable === true || conversion.leniency.nullable.has(place.address);
  let schema: unknown;
  if (typeof node.$ref === 'string') {
    schema = convert(referenced(place, node.$ref), conversion);
  } else {
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) if (!SKIPPED.has(key)) out[key] = convertChild(key, inside(place, key, value), conversion);
    if (isObject(out.properties)) {
      const omitted = conversion.leniency.omitted.get(place.address) ?? [];
      const required = new Set([...(Array.isArray(out.required) ? (out.required as string[]) : []), ...Object.keys(out.properties)]);
      for (const name of omitted) required.delete(name);
      out.required = [...required];
    }
    schema = out;
  }
  conversion.stack.pop();
  return nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
}

export interface OriginalSchema {
  /** Where the schema starts. */
  address: string;
  schema: JsonSchema;
  visited: ReadonlySet<string>;
}

/** The JSON Schema at an address; a response object (`{description, content}`) gives its JSON body's schema. */
export function schemaAt(address: string, leniency: Leniency = NO_LENIENCY): OriginalSchema {
  let place = placeAt(address);
  while (isObject(place.node) && typeof place.node.$ref === 'string') place = referenced(place, place.node.$ref);
  const content = isObject(place.node) ? place.node.content : undefined;
  const media = isObject(content) ? content['application/json'] : undefined;
  if (isObject(media) && media.schema !== undefined)
    place = inside(inside(inside(place, 'content', content), 'application~1json', media), 'schema', media.schema);
  const conversion: Conversion = { leniency, visited: new Set(), stack: [] };
  return { address: place.address, schema: convert(place, conversion) as JsonSchema, visited: conversion.visited };
}

export type OriginalAnswer =
  | { kind: 'json'; operation: string; response: OriginalSchema }
  /** The original documents the success without a body (its "OK" or a binary file). */
  | { kind: 'no-json'; operation: string; description: string };

/**
 * The success answer the original documents for an operation of a version's swagger.yaml,
 * `POST /api/v2/channel` (the 2021 file answers under "200000", the 2023 one under "200").
 */
export function originalAnswer(version: OriginalVersion, operation: string, leniency: Leniency = NO_LENIENCY): OriginalAnswer {
  const [method = '', route = ''] = operation.split(' ');
  let op = placeAt(`${version}/swagger.yaml#/paths/${encodeStep(route)}/${method.toLowerCase()}`);
  if (isObject(op.node) && typeof op.node.$ref === 'string') op = referenced(op, op.node.$ref);
  const responses = isObject(op.node) ? op.node.responses : undefined;
  const key = ['200', '200000'].find((candidate) => isObject(responses) && responses[candidate] !== undefined);
  if (key === undefined || !isObject(responses)) throw new Error(`${version} ${operation} documents no success answer`);
  let response = inside(inside(op, 'responses', responses), key, responses[key]);
  while (isObject(response.node) && typeof response.node.$ref === 'string') response = referenced(response, response.node.$ref);
  const content = isObject(response.node) ? response.node.content : undefined;
  if (!isObject(content) || !isObject(content['application/json'])) {
    const description = isObject(response.node) && typeof response.node.description === 'string' ? response.node.description : '';
    return { kind: 'no-json', operation, description };
  }
  return { kind: 'json', operation, response: schemaAt(`${response.base}#${response.address.split('#')[1]}`, leniency) };
}

const ajv = createAjv();
const compiled = new Map<string, ValidateFunction>();

/** The problems of a value against a written-out schema; none when it matches. */
export function problemsAgainst(schema: JsonSchema, value: unknown): string[] {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(text, validate);
  }
  return validate(value) ? [] : [describeErrors(validate.errors, 8)];
}
