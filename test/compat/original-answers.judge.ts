import type { LightMyRequestResponse } from 'fastify';
import { type Leniency, ORIGINAL_VERSIONS, originalAnswer, placeAt, problemsAgainst, schemaAt } from '../helpers/published-shapes.js';
import type { Difference } from './original-answers.differences.js';
import type { RouteCase } from './original-answers.routes.js';

/**
 * How one real answer is held to the original: against the success schema of every version that
 * lists the route, loosened and tightened only by the table of differences; where the original
 * documents no JSON answer (its bare "OK") or no route at all, against the original's schema the
 * table names for it instead.
 */
export interface Judgment {
  /** `686a8b6 POST /api/v2/channel`, or the address a difference holds the answer to. */
  against: string;
  problems: string[];
  /** Every place of the original's files the schema reached. */
  visited: ReadonlySet<string>;
}

/** One loosening of the table, so that a test can take it away and see whether any answer needed it. */
export type LeniencyItem = { kind: 'nullable'; address: string } | { kind: 'omitted'; address: string; property: string };

const sameItem = (a: LeniencyItem, b: LeniencyItem): boolean =>
  a.kind === b.kind && a.address === b.address && (a.kind === 'nullable' || (b.kind === 'omitted' && a.property === b.property));

export function itemsOf(difference: Difference): LeniencyItem[] {
  const nullable = (difference.nullable ?? []).map((address): LeniencyItem => ({ kind: 'nullable', address: canonical(address) }));
  const omitted = Object.entries(difference.omitted ?? {}).flatMap(([address, names]) =>
    names.map((property): LeniencyItem => ({ kind: 'omitted', address: canonical(address), property })),
  );
  return [...nullable, ...omitted];
}

/** An address as the loader writes it (the 2023 folder's missing files read from 2021, pointers with a leading slash). */
export function canonical(address: string): string {
  return placeAt(address).address;
}

const appliesTo = (difference: Difference, route: string): boolean => difference.onlyOn === undefined || difference.onlyOn.includes(route);

export function leniencyFor(route: string, differences: readonly Difference[], without?: LeniencyItem): Leniency {
  const nullable = new Set<string>();
  const omitted = new Map<string, string[]>();
  for (const difference of differences) {
    if (!appliesTo(difference, route)) continue;
    for (const item of itemsOf(difference)) {
      if (without !== undefined && sameItem(item, without)) continue;
      if (item.kind === 'nullable') nullable.add(item.address);
      else omitted.set(item.address, [...(omitted.get(item.address) ?? []), item.property]);
    }
  }
  return { nullable, omitted };
}

/** `POST /api/v2/channel/{channelId}/displayName` and `GET .../images?size` spelled as Parley's routes are. */
export const normalizedOperation = (operation: string): string => operation.replace(/\{(\w+)\}/g, ':$1').replace(/\?.*$/, '');

export interface Answer {
  status: number;
  mediaType: string;
  body: unknown;
  size: number;
}

export function answerOf(response: LightMyRequestResponse): Answer {
  const mediaType =
    String(response.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  const body = mediaType === 'application/json' ? (response.json() as unknown) : null;
  return { status: response.statusCode, mediaType, body, size: response.rawPayload.length };
}

function heldTo(routeCase: RouteCase, differences: readonly Difference[]): string | undefined {
  for (const difference of differences) {
    const address = difference.heldTo?.[routeCase.route];
    if (address !== undefined) return address;
  }
  return undefined;
}

/** The judgments of one answer; a problem that is no schema's (a download of the wrong type) is its own judgment. */
export function judge(routeCase: RouteCase, answer: Answer, differences: readonly Difference[], without?: LeniencyItem): Judgment[] {
  const leniency = leniencyFor(routeCase.route, differences, without);
  const judgments: Judgment[] = [];
  let documentsNoJson = Object.keys(routeCase.original).length === 0;
  for (const version of ORIGINAL_VERSIONS) {
    const operation = routeCase.original[version];
    if (operation === undefined) continue;
    const documented = originalAnswer(version, operation, leniency);
    if (documented.kind === 'json') {
      judgments.push({
        against: `${version} ${operation}`,
        problems: problemsAgainst(documented.response.schema, answer.body),
        visited: documented.response.visited,
      });
    } else if (routeCase.download !== undefined) {
      const problems =
        routeCase.download.test(answer.mediaType) && answer.size > 0
          ? []
          : [`a download of ${routeCase.download} was expected, got ${answer.mediaType} (${answer.size} bytes)`];
      judgments.push({ against: `${version} ${operation} ("${documented.description}")`, problems, visited: new Set() });
    } else documentsNoJson = true;
  }
  if (documentsNoJson) {
    const address = heldTo(routeCase, differences);
    if (address === undefined) {
      const problem = 'the original documents no JSON answer here (or no such route): the table of differences must say what Parley answers instead (heldTo)';
      judgments.push({ against: '(nothing)', problems: [problem], visited: new Set() });
    } else {
      const held = schemaAt(address, leniency);
      judgments.push({ against: address, problems: problemsAgainst(held.schema, answer.body), visited: held.visited });
    }
  }
  return judgments;
}

/** Every place of the original's files the schemas a route is held to reach (the files alone; no answer, no validation). */
export function placesReached(routeCase: RouteCase, differences: readonly Difference[]): Set<string> {
  const leniency = leniencyFor(routeCase.route, differences);
  const addresses = new Set<string>();
  const add = (visited: ReadonlySet<string>) => {
    for (const address of visited) addresses.add(address);
  };
  for (const version of ORIGINAL_VERSIONS) {
    const operation = routeCase.original[version];
    const documented = operation === undefined ? undefined : originalAnswer(version, operation, leniency);
    if (documented?.kind === 'json') add(documented.response.visited);
  }
  const held = heldTo(routeCase, differences);
  if (held !== undefined) add(schemaAt(held, leniency).visited);
  return addresses;
}
