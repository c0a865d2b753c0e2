import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerCheck, installResponseValidation, type ResponseValidation } from '../helpers/response-validation.js';

/**
 * The response checks of helpers/response-validation.ts on a small app whose routes make each
 * mistake once, so the checks the OpenAPI tests rely on are known to catch what they claim to.
 */
const Item = Type.Object({ id: Type.String(), count: Type.Integer() });

function buildApp(): FastifyInstance {
  const app = Fastify();
  const answers = (success: object) => ({ response: { 200: success } });
  app.get('/good', { schema: answers(Type.Object({ items: Type.Array(Item) })) }, async () => ({ items: [{ id: 'a', count: 1 }] }));
  app.get('/forgotten-field', { schema: answers(Item) }, async () => ({ id: 'a', count: 1, secret: 'emitted but not declared' }));
  app.get('/nested-forgotten-field', { schema: answers(Type.Object({ items: Type.Array(Item) })) }, async () => ({
    items: [{ id: 'a', count: 1, extra: true }],
  }));
  app.get('/coerced', { schema: answers(Item) }, async () => ({ id: 42, count: '7' }));
  app.get('/nullable', { schema: answers(Type.Object({ owner: Type.Union([Item, Type.Null()]) })) }, async () => ({ owner: { id: 'a', count: 1, extra: 1 } }));
  app.get('/pre-serialized', { schema: answers(Item) }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send('{"id":"a","count":1,"more":2}'),
  );
  app.get('/page', { schema: answers(Item) }, async (_request, reply) => reply.type('text/html').send('<p>hello</p>'));
  app.get('/documented-page', { schema: { response: { 200: { content: { 'text/html': { schema: Type.String() } } } } } }, async (_request, reply) =>
    reply.type('text/html').send('<p>hi</p>'),
  );
  const onlyOk: FastifySchema = answers(Item);
  app.get('/undocumented-status', { schema: onlyOk }, async (_request, reply) => reply.code(201).send({ id: 'a', count: 1 }));
  app.get('/redirect', { schema: { response: { 302: { type: 'null', description: 'To the next page' } } } }, async (_request, reply) =>
    reply.redirect('/good', 302),
  );
  const Labelled = Type.Intersect([Item, Type.Object({ label: Type.String() })]);
  app.get('/composed', { schema: answers(Labelled) }, async () => ({ id: 'a', count: 1, label: 'x' }));
  app.get('/composed-extra', { schema: answers(Labelled) }, async () => ({ id: 'a', count: 1, label: 'x', extra: true }));
  const download = { response: { 200: { content: { '*/*': { schema: Type.String({ format: 'binary' }) } } } } };
  app.get('/download', { schema: download }, async (_request, reply) => reply.type('application/json').send(Buffer.from('{"any":"file"}')));
  app.get('/no-schema', async () => ({ anything: true }));
  return app;
}

describe('response validation (the checks behind test/openapi/answers.test.ts)', () => {
  let app: FastifyInstance;
  let validation: ResponseValidation;

  beforeAll(async () => {
    app = buildApp();
    validation = installResponseValidation(app, { failTests: false });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  async function checkOf(url: string): Promise<AnswerCheck> {
    await app.inject({ method: 'GET', url });
    const check = validation.checks.at(-1);
    if (!check || check.url !== url) throw new Error(`no check recorded for ${url}`);
    return check;
  }

  it('passes an answer that matches its schema, and leaves a route without one undeclared', async () => {
    expect(await checkOf('/good')).toMatchObject({ outcome: 'conforms', problems: [] });
    expect(await checkOf('/no-schema')).toMatchObject({ outcome: 'undeclared' });
    expect(await checkOf('/documented-page')).toMatchObject({ outcome: 'conforms' });
    expect(await checkOf('/download')).toMatchObject({ outcome: 'conforms', mediaType: 'application/json' });
    expect(await checkOf('/redirect')).toMatchObject({ outcome: 'conforms', status: 302 });
  });

  it('catches a field the presenter emits and the schema forgot, which the serializer drops', async () => {
    const check = await checkOf('/forgotten-field');
    expect(check.outcome).toBe('violates');
    expect(check.problems.join(' ')).toContain('must NOT have additional properties "secret"');
    expect(check.problems.join(' ')).toContain('/secret: dropped from the wire');
    expect((await checkOf('/nested-forgotten-field')).problems.join(' ')).toContain('/items/0 must NOT have additional properties "extra"');
    expect((await checkOf('/nullable')).outcome).toBe('violates');
  });

  it('sees every part of a composed (allOf) object, and only those', async () => {
    expect(await checkOf('/composed')).toMatchObject({ outcome: 'conforms' });
    expect((await checkOf('/composed-extra')).problems.join(' ')).toContain('must NOT have unevaluated properties "extra"');
  });

  it('catches values the serializer coerced to the declared types', async () => {
    const check = await checkOf('/coerced');
    expect(check.outcome).toBe('violates');
    expect(check.problems.join(' ')).toContain('/id must be string');
    expect(check.problems.join(' ')).toContain('/count: "7" became 7');
  });

  it('validates a body the route serialized itself', async () => {
    expect((await checkOf('/pre-serialized')).problems.join(' ')).toContain(
      'body does not match the schema: (root) must NOT have additional properties "more"',
    );
  });

  it('catches a non-JSON answer documented as JSON, and a status not documented', async () => {
    expect((await checkOf('/page')).problems.join(' ')).toContain('answered text/html, but the 200 response is documented as JSON');
    expect((await checkOf('/undocumented-status')).problems.join(' ')).toContain('status 201 is not documented');
  });
});

describe('a violation fails the test during which it was answered', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = buildApp();
    installResponseValidation(app);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it.fails('this test fails: its answer carries a field its schema forgot', async () => {
    const response = await app.inject({ method: 'GET', url: '/forgotten-field' });
    expect(response.statusCode).toBe(200);
  });

  it('and a test whose answers conform passes', async () => {
    expect((await app.inject({ method: 'GET', url: '/good' })).statusCode).toBe(200);
  });
});
