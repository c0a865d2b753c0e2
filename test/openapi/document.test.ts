import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { CHECKS, type CheckName, type OpenApiDocument, operationProblems, type Problem } from './document-checks.js';
import { documentedRoutes, HIDDEN_ROUTES, NON_JSON_SUCCESS, operationKey } from './route-kinds.js';

/**
 * /openapi.json documents every operation of the app fully: a JSON success with its schema and an
 * example (or, for the routes listed in route-kinds.ts, the page, file, image, text or redirect
 * they answer instead), the error envelope under the statuses the route can answer, a summary,
 * request bodies with an example under every media type the body parsers accept, and examples that
 * match their own schemas. Routes come from the app's own table, so a route added later is checked
 * without anyone listing it. On failure the to-do is printed, one operation at a time.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options'];

function formatTodo(problems: readonly Problem[], operationCount: number): string {
  const byOperation = new Map<string, Problem[]>();
  for (const problem of problems) byOperation.set(problem.operation, [...(byOperation.get(problem.operation) ?? []), problem]);
  const keys = [...byOperation.keys()].sort((a, b) => a.split(' ')[1]?.localeCompare(b.split(' ')[1] ?? '') || a.localeCompare(b));
  const lines = keys.flatMap((key) => [key, ...(byOperation.get(key) ?? []).map((problem) => `  - ${problem.check}: ${problem.message}`)]);
  return `OpenAPI document to-do: ${byOperation.size} of ${operationCount} operations incomplete, ${problems.length} problems\n${lines.join('\n')}\n`;
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  let operationCount = 0;
  const problems: Problem[] = [];

  beforeAll(async () => {
    // The test clock and the tray add routes: every route the app can have is documented.
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1' });
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    document = response.json() as OpenApiDocument;
    const components = document.components?.schemas ?? {};
    const routes = documentedRoutes(t.routes);
    operationCount = routes.length;
    const registered = new Set<string>();
    for (const route of routes) {
      const key = operationKey(route.method, route.url);
      registered.add(key);
      const operation = document.paths?.[route.url.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      if (!operation) problems.push({ operation: key, check: 'listed', message: 'is registered but missing from /openapi.json' });
      else problems.push(...operationProblems(route, operation, components));
    }
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS.filter((name) => item[name] !== undefined)) {
        const key = operationKey(method, path);
        if (!registered.has(key)) problems.push({ operation: key, check: 'listed', message: 'is in the document, but no route answers it' });
      }
    }
    // Compiling a hundred-odd schemas takes a while on a busy machine.
  }, 180_000);
  afterAll(async () => {
    if (problems.length > 0) process.stdout.write(formatTodo(problems, operationCount));
    await t?.close();
  });

  it('is served as OpenAPI 3.1 and lists the operations of every surface', () => {
    expect(document).toMatchObject({ openapi: '3.1.0' });
    expect(operationCount).toBeGreaterThan(90);
    for (const prefix of ['/api/v2/', '/client/v1/', '/bot/v1/', '/notifications/', '/oauth/', '/healthz']) {
      expect(
        Object.keys(document.paths).some((path) => path.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
  });

  it('names its exceptions only for routes that exist', () => {
    const keys = new Set(documentedRoutes(t.routes).map((route) => operationKey(route.method, route.url)));
    expect(Object.keys(NON_JSON_SUCCESS).filter((key) => !keys.has(key))).toEqual([]);
    expect(HIDDEN_ROUTES.every(({ pattern }) => t.routes.some((route) => pattern.test(route.url)))).toBe(true);
  });

  const what: Record<CheckName, string> = {
    listed: 'every registered route is in the document, and every operation of the document is a route',
    described: 'every operation has a summary or a description',
    success: 'every operation documents its success: a JSON schema, or the page, file, image, text or redirect it answers instead',
    errors: 'every operation documents the errors it can answer, in the envelope (or as pages where a person reads them)',
    examples: 'every JSON success and every request body has an example',
    'example-validity': 'every example matches its own schema (no field the schema does not declare)',
    'request-body': 'every request body is documented under each media type its parser accepts (JSON and forms, multipart, sign-in forms)',
  };

  it.each(CHECKS)('%s', (check) => {
    const failing = problems.filter((problem) => problem.check === check).map((problem) => `${problem.operation}: ${problem.message}`);
    expect(failing.length, `${what[check]}; ${failing.length} problems:\n${failing.join('\n')}\n`).toBe(0);
  });
});
