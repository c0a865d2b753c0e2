import { describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import { ErrorEnvelope } from '../../src/http/responses.js';
import { type OperationObject, operationProblems } from './document-checks.js';

/**
 * The checks of document.test.ts on hand-made operations: a complete one passes, and each omission
 * is named under its check, so the to-do the document test prints can be trusted.
 */
const thing = { type: 'object', required: ['thingId', 'name'], properties: { thingId: { type: 'string' }, name: { type: 'string' } } };
const envelope = JSON.parse(JSON.stringify(ErrorEnvelope)) as Record<string, unknown>;
const json = (schema: Record<string, unknown>, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});
const errors = Object.fromEntries([400, 401, 403, 404, 422, 500].map((status) => [String(status), json(envelope)]));

const route: RegisteredRoute = {
  method: 'POST',
  url: '/api/v2/things/:thingId',
  websocket: false,
  schema: { params: { type: 'object' }, body: thing },
};

function complete(): OperationObject {
  const example = { thingId: 't1', name: 'Lamp' };
  return {
    summary: 'Make a thing',
    requestBody: { content: { 'application/json': { schema: thing, example }, 'application/x-www-form-urlencoded': { schema: thing, example } } },
    responses: { 200: json(thing, example), ...errors },
  };
}

const problemsOf = (operation: OperationObject, of: RegisteredRoute = route) =>
  operationProblems(of, operation, {}).map((problem) => `${problem.check}: ${problem.message}`);

describe('the OpenAPI document checks', () => {
  it('find nothing to say about a complete operation', () => {
    expect(problemsOf(complete())).toEqual([]);
  });

  it('name each omission under its check', () => {
    const operation = complete();
    operation.summary = '';
    delete operation.requestBody?.content?.['application/x-www-form-urlencoded'];
    const responses = operation.responses ?? {};
    delete responses['404'];
    delete responses['401'];
    delete responses['403'];
    responses['200'] = json(thing);
    expect(problemsOf(operation)).toEqual([
      'described: has no summary or description',
      'errors: documents no error answer 401 or 403, 404 (the envelope)',
      'examples: the 200 answer has no example',
      'request-body: the request body is not documented as application/x-www-form-urlencoded',
    ]);
  });

  it('find a JSON success missing, an error that is not the envelope, and an example with an undeclared field', () => {
    const operation = complete();
    const responses = operation.responses ?? {};
    responses['200'] = { description: 'Default Response' };
    responses['422'] = json({ type: 'object' });
    const body = operation.requestBody?.content?.['application/json'];
    if (body) body.example = { thingId: 't1', name: 'Lamp', colour: 'red' };
    expect(problemsOf(operation)).toEqual([
      'success: the 200 answer has no application/json schema',
      'errors: the 422 error is not the error envelope',
      'example-validity: the example of the request body (application/json) does not match its schema: (root) must NOT have additional properties "colour"',
    ]);
  });

  it('hold a non-JSON route to what it documents instead', () => {
    const metrics: RegisteredRoute = { method: 'GET', url: '/metrics', websocket: false, schema: {} };
    const documented: OperationObject = {
      summary: 'Prometheus metrics',
      responses: { 200: { content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }, 500: json(envelope) },
    };
    expect(problemsOf(documented, metrics)).toEqual([]);
    expect(problemsOf({ summary: 'Prometheus metrics', responses: { 200: json({ type: 'string' }), 500: json(envelope) } }, metrics)).toEqual([
      'success: the 200 answer documents no body of type ^text\\/plain (the Prometheus text exposition format a scraper reads)',
    ]);
  });
});
