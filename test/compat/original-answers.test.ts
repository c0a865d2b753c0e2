import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGINAL_VERSIONS } from '../helpers/published-shapes.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';
import { DIFFERENCES, type Difference, differencesMarkdown } from './original-answers.differences.js';
import { type Answer, answerOf, canonical, itemsOf, judge, type LeniencyItem, normalizedOperation, placesReached } from './original-answers.judge.js';
import { ROUTE_CASES, type RouteCase, type Scene, seedScene } from './original-answers.routes.js';

/**
 * Every admin v2 route the contract lists (docs/contract.md, Admin API), called on a real app with realistic data, and its real answer
 * validated against the response schema the original service published for it, in both versions
 * carried in original-shapes.json (2021 686a8b6 and 2023 6e3323f; see test/helpers/published-shapes.ts).
 * Every property the original documents must be there unless the table of deliberate differences
 * (original-answers.differences.ts) says Parley leaves it out, and nothing else is loosened: a presenter
 * that renames or drops a field, or changes its type, fails here.
 */
const problemsOf = (routeCase: RouteCase, answer: Answer, without?: LeniencyItem): string[] =>
  judge(routeCase, answer, DIFFERENCES, without)
    .filter((judgment) => judgment.problems.length > 0)
    .map((judgment) => `${judgment.against}: ${judgment.problems.join('; ')}`);

const describeItem = (item: LeniencyItem): string => (item.kind === 'nullable' ? `null at ${item.address}` : `${item.property} left out of ${item.address}`);

/** How a broken presenter changes one place of an answer. */
type Change = { kind: 'rename'; to: string } | { kind: 'drop' } | { kind: 'replace'; by: (value: unknown) => unknown };

/** Applies a change at a JSON pointer of a copy of the body. */
function broken(body: unknown, pointer: string, change: Change): unknown {
  const copy = structuredClone(body);
  const steps = pointer.split('/').slice(1);
  const key = steps.pop() ?? '';
  let parent = copy as Record<string, unknown>;
  for (const step of steps) parent = parent[step] as Record<string, unknown>;
  const value = parent[key];
  if (change.kind !== 'replace') delete parent[key];
  if (change.kind === 'rename') parent[change.to] = value;
  if (change.kind === 'replace') parent[key] = change.by(value);
  return copy;
}

/** A broken shape per kind of answer (route, place, change): each must be caught. */
const BREAKAGES: Array<[string, string, Change]> = [
  ['POST /api/v2/channel', '/channel/channelId', { kind: 'rename', to: 'channel_id' }],
  ['POST /api/v2/channels', '/paging', { kind: 'drop' }],
  ['POST /api/v2/messages', '/data/messages/0/channelSegment', { kind: 'replace', by: String }],
  ['GET /api/v2/message/:messageId', '/message/reactions', { kind: 'replace', by: (value) => Object.keys(value as object) }],
  ['GET /api/v2/users', '/users/0/info/publicId', { kind: 'drop' }],
  ['GET /api/v2/reactions', '/data/reactions/0/reactors/0/reactionId', { kind: 'rename', to: 'id' }],
  ['POST /api/v2/reactions', '/addedId', { kind: 'rename', to: 'reactionId' }],
  ['POST /api/v2/users/ban', '/status', { kind: 'drop' }],
  ['PUT /api/v2/blacklist/records/:ruleId', '/data', { kind: 'replace', by: (rule) => ({ results: [rule] }) }],
  ['PUT /api/v2/channel/:channelId/mute', '/success', { kind: 'replace', by: String }],
];

describe.each(testDatabases)('admin v2 answers against the original published schemas, on %s', (database) => {
  let t: TestApp;
  let scene: Scene;
  const answers = new Map<string, Answer>();
  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    scene = await seedScene(t);
  });
  afterAll(async () => {
    await t.close();
  });

  for (const routeCase of ROUTE_CASES) {
    it(routeCase.route, async () => {
      const response = await routeCase.call(scene);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
      const answer = answerOf(response);
      answers.set(routeCase.route, answer);
      expect(problemsOf(routeCase, answer), JSON.stringify(answer.body).slice(0, 1500)).toEqual([]);
    });
  }

  it('fails answers whose shape is broken on purpose', () => {
    const missed: string[] = [];
    for (const [route, pointer, change] of BREAKAGES) {
      const routeCase = ROUTE_CASES.find((candidate) => candidate.route === route);
      const answer = answers.get(route);
      if (routeCase === undefined || answer === undefined) throw new Error(`${route} was not called`);
      const body = broken(answer.body, pointer, change);
      if (problemsOf(routeCase, { ...answer, body }).length === 0) missed.push(`${route}: ${change.kind} ${pointer}`);
    }
    expect(missed).toEqual([]);
  });

  it('needs every loosening in the table: each is what some real answer would fail without', () => {
    const unneeded: string[] = [];
    const reachedBy = new Map(
      ROUTE_CASES.filter((routeCase) => answers.has(routeCase.route)).map((routeCase) => {
        const answer = answers.get(routeCase.route) as Answer;
        const visited = new Set(judge(routeCase, answer, DIFFERENCES).flatMap((judgment) => [...judgment.visited]));
        return [routeCase, { answer, visited }] as const;
      }),
    );
    for (const difference of DIFFERENCES) {
      for (const item of itemsOf(difference)) {
        const reaching = [...reachedBy].filter(([, { visited }]) => visited.has(item.address));
        const needed = reaching.some(([routeCase, { answer }]) => problemsOf(routeCase, answer, item).length > 0);
        if (!needed) unneeded.push(`${difference.name}: ${describeItem(item)} (reached by ${reaching.length} answer(s))`);
      }
    }
    expect(unneeded).toEqual([]);
  });
});

/** The routes a difference concerns, as the printed table lists them. */
function routesOf(difference: Difference, reached: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const named = new Set([...Object.keys(difference.heldTo ?? {}), ...(difference.paths ?? [])]);
  const addresses = itemsOf(difference).map((item) => item.address);
  return ROUTE_CASES.map((routeCase) => routeCase.route).filter(
    (route) =>
      (named.has(route) || addresses.some((address) => reached.get(route)?.has(address))) &&
      (difference.onlyOn === undefined || difference.onlyOn.includes(route)),
  );
}

describe('the table of deliberate differences from the original', () => {
  it('names places that exist in the original files and routes that are tested', () => {
    const routes = new Set(ROUTE_CASES.map((routeCase) => routeCase.route));
    const unknown: string[] = [];
    for (const difference of DIFFERENCES) {
      for (const route of [...Object.keys(difference.heldTo ?? {}), ...(difference.paths ?? []), ...(difference.onlyOn ?? [])]) {
        if (!routes.has(route)) unknown.push(`${difference.name}: ${route}`);
      }
      for (const address of Object.values(difference.heldTo ?? {})) canonical(address);
      expect(itemsOf(difference).length + Object.keys(difference.heldTo ?? {}).length + (difference.paths?.length ?? 0), difference.name).toBeGreaterThan(0);
    }
    expect(unknown).toEqual([]);
  });

  it('names every route Parley serves at another path or with another method than the original lists', () => {
    const named = new Set(DIFFERENCES.flatMap((difference) => difference.paths ?? []));
    const differing = ROUTE_CASES.filter((routeCase) =>
      ORIGINAL_VERSIONS.some((version) => {
        const operation = routeCase.original[version];
        return operation !== undefined && normalizedOperation(operation) !== routeCase.route;
      }),
    ).map((routeCase) => routeCase.route);
    expect([...named].sort()).toEqual(differing.sort());
  });

  it('prints the table (the source of docs/compatibility.md)', () => {
    const reached = new Map(ROUTE_CASES.map((routeCase) => [routeCase.route, placesReached(routeCase, DIFFERENCES)]));
    for (const difference of DIFFERENCES) expect(routesOf(difference, reached).length, `${difference.name} concerns no tested route`).toBeGreaterThan(0);
    const table = differencesMarkdown((difference) => routesOf(difference, reached));
    console.log(`Deliberate differences from the original's published Admin API v2 files:\n\n${table}\n`);
  });
});
