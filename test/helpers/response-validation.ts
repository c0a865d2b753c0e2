import { Readable, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { onTestFinished, TestRunner } from 'vitest';
import { describeErrors, isObject, type JsonSchema, jsonDifferences, validatorCache } from './json-schema.js';

/**
 * Every answer of an app held to the response schema its route declares (`schema.response`):
 *  - the object a handler returned is validated with additional properties refused, so a field the
 *    presenter emits and the schema forgot is caught (fast-json-stringify would drop it silently);
 *  - the body on the wire must parse to that same object (the serializer also coerces types and
 *    drops fields without a word);
 *  - a body a route serialized itself (a JSON string) is parsed and validated the same way;
 *  - a non-JSON answer (an image, a page, a redirect) must be documented under its status and
 *    media type;
 *  - a route that declares responses must declare every status it answers.
 * A violation fails the test during which the answer was sent; one sent outside a test (in a
 * beforeAll) fails `close()` of the test app, so no answer goes unchecked.
 */
export interface AnswerCheck {
  method: string;
  /** The route pattern, e.g. /api/v2/message/:messageId. */
  route: string;
  url: string;
  status: number;
  mediaType: string;
  /** undeclared: the route declares no response schema at all (not counted as a violation). */
  outcome: 'conforms' | 'violates' | 'undeclared';
  problems: string[];
  /** The error behind a 5xx answer, as the server saw it (the envelope hides it). */
  serverError?: string;
}

export interface ResponseValidation {
  /** Every checked answer, in order. */
  readonly checks: AnswerCheck[];
  violations(): AnswerCheck[];
  /** Throws when violations were recorded outside any test (a beforeAll, an afterAll). */
  assertNoneUnreported(): void;
}

const validatorOf = validatorCache();
const isJson = (mediaType: string): boolean => mediaType === 'application/json' || mediaType.endsWith('+json');

export function formatViolations(checks: readonly AnswerCheck[]): string {
  const lines = checks.map(
    (check) =>
      `  ${check.method} ${check.route} (${check.url.slice(0, 100)}) -> ${check.status} ${check.mediaType || '(no body)'}: ${check.problems.join(' | ')}`,
  );
  return `${checks.length} answer(s) do not match the declared response schema:\n${lines.join('\n')}`;
}

/** The declared response of a status: exact, then 2xx-style, then default. */
function declaredFor(response: unknown, status: number): JsonSchema | undefined {
  if (!isObject(response)) return undefined;
  for (const key of [String(status), `${String(status)[0]}xx`, `${String(status)[0]}XX`, 'default']) {
    const entry = response[key];
    if (isObject(entry)) return entry;
  }
  return undefined;
}

function mediaMatches(declared: string, actual: string): boolean {
  const [type, subtype] = declared.toLowerCase().split(';')[0]?.trim().split('/') ?? [];
  const [actualType, actualSubtype] = actual.split('/');
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype);
}

/** The JSON schema the declared response gives this media type, or the problem. */
function schemaForMedia(declared: JsonSchema, status: number, mediaType: string, hasBody: boolean): { schema?: JsonSchema; problem?: string } {
  if (isObject(declared.content)) {
    const key = Object.keys(declared.content).find((candidate) => mediaMatches(candidate, mediaType));
    if (!hasBody) return {};
    if (key === undefined) return { problem: `answered ${mediaType}, but the ${status} response documents only ${Object.keys(declared.content).join(', ')}` };
    const media = declared.content[key];
    // Only a body documented as JSON is validated as JSON: a wildcard (a download under */*) answers
    // whatever was stored, a JSON file included.
    const documentedAsJson = isJson(key.split(';')[0]?.trim().toLowerCase() ?? '');
    return isObject(media) && isObject(media.schema) && documentedAsJson ? { schema: media.schema } : {};
  }
  if (!hasBody) return {};
  if (!isJson(mediaType)) return { problem: `answered ${mediaType}, but the ${status} response is documented as JSON (declare it under content)` };
  return { schema: declared };
}

function bodyText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return null;
}

/** Problems of one JSON answer: the handler's object (when there was one) and the body on the wire. */
function jsonProblems(schema: JsonSchema, text: string | null, original: { value: unknown } | undefined): string[] {
  const validate = validatorOf(schema);
  if (typeof validate === 'string') return [validate];
  if (text === null) return ['a streamed JSON body cannot be checked'];
  let wire: unknown;
  try {
    wire = JSON.parse(text);
  } catch {
    return [`the body is not JSON: ${text.slice(0, 80)}`];
  }
  const problems: string[] = [];
  const subject = original === undefined ? wire : (JSON.parse(JSON.stringify(original.value) ?? 'null') as unknown);
  if (!validate(subject))
    problems.push(`${original === undefined ? 'body' : "handler's object"} does not match the schema: ${describeErrors(validate.errors)}`);
  if (original !== undefined) {
    const differences = jsonDifferences(subject, wire);
    if (differences.length > 0) problems.push(`the serialized body differs from the handler's object: ${differences.join('; ')}`);
  }
  return problems;
}

function checkAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, original: { value: unknown } | undefined): AnswerCheck | null {
  const route = request.routeOptions.url;
  if (route === undefined || request.method === 'HEAD' || request.method === 'OPTIONS') return null;
  const status = reply.statusCode;
  const mediaType =
    String(reply.getHeader('content-type') ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  const base = { method: request.method, route, url: request.url, status, mediaType };
  const responses = (request.routeOptions.schema as { response?: unknown } | undefined)?.response;
  if (!isObject(responses) || Object.keys(responses).length === 0) return { ...base, outcome: 'undeclared', problems: [] };
  const declared = declaredFor(responses, status);
  if (declared === undefined)
    return { ...base, outcome: 'violates', problems: [`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`] };
  const hasBody = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload.length > 0 : payload !== null && payload !== undefined;
  const { schema, problem } = schemaForMedia(declared, status, mediaType, hasBody);
  const problems = problem !== undefined ? [problem] : schema !== undefined ? jsonProblems(schema, bodyText(payload), original) : [];
  return { ...base, outcome: problems.length === 0 ? 'conforms' : 'violates', problems };
}

/**
 * Adds the hooks to an app that has not booted yet (they reach every route, registered before or
 * after). `failTests: false` only records, for a test that inspects the checks itself.
 */
export function installResponseValidation(app: FastifyInstance, options: { failTests?: boolean } = {}): ResponseValidation {
  const failTests = options.failTests ?? true;
  const checks: AnswerCheck[] = [];
  const unreported: AnswerCheck[] = [];
  const reportedTests = new WeakSet<object>();
  const handlerObjects = new WeakMap<FastifyRequest, { value: unknown }>();
  const serverErrors = new WeakMap<FastifyRequest, string>();

  const report = (check: AnswerCheck): void => {
    const test = TestRunner.getCurrentTest();
    if (!test) {
      unreported.push(check);
      return;
    }
    if (!reportedTests.has(test)) {
      reportedTests.add(test);
      const startIndex = checks.indexOf(check);
      onTestFinished(() => {
        const during = checks.slice(startIndex).filter((item) => item.outcome === 'violates');
        if (during.length > 0) throw new Error(formatViolations(during));
      });
    }
  };

  app.addHook('preSerialization', (request, _reply, payload, done) => {
    handlerObjects.set(request, { value: payload });
    done(null, payload);
  });
  app.addHook('onError', (request, _reply, error, done) => {
    serverErrors.set(request, error.message);
    done();
  });
  function record(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const check = checkAnswer(request, reply, payload, handlerObjects.get(request));
    const serverError = reply.statusCode >= 500 ? serverErrors.get(request) : undefined;
    if (check !== null && serverError !== undefined) check.serverError = serverError;
    if (check !== null) {
      checks.push(check);
      if (check.outcome === 'violates' && failTests) report(check);
    }
  }
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!(payload instanceof Readable)) {
      record(request, reply, payload);
      done(null, payload);
      return;
    }
    // A streamed answer (a user export) is checked once it has all gone by, chunks passed on unchanged.
    const chunks: Buffer[] = [];
    const tee = new Transform({
      transform(chunk: Buffer | string, _encoding, next) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        next(null, chunk);
      },
      flush(next) {
        record(request, reply, Buffer.concat(chunks));
        next();
      },
    });
    payload.pipe(tee);
    done(null, tee);
  });

  return {
    checks,
    violations: () => checks.filter((check) => check.outcome === 'violates'),
    assertNoneUnreported: () => {
      if (unreported.length > 0) throw new Error(`Outside any test: ${formatViolations(unreported)}`);
    },
  };
}
