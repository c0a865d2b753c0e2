import type { LightMyRequestResponse } from 'fastify';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import type { TestApp } from '../../helpers/test-app.js';

/**
 * The shared state of the answers scenario: the app, the people and things made so far, and a
 * caller that records an unexpected status instead of stopping, so one broken route does not hide
 * the answers of every route after it.
 */
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Person {
  userId: string;
  token: string;
}

export interface CallOptions {
  /** A bearer token; none for the public routes. */
  token?: string;
  json?: unknown;
  form?: string;
  multipart?: { fields: Array<[string, string]>; file?: { data: Buffer; fileName: string; contentType: string } };
  headers?: Record<string, string>;
  /** The status that means success (200 unless said). */
  status?: number;
}

export interface World {
  t: TestApp;
  /** What went wrong, one line each: a call that did not succeed, a step that threw. */
  failures: string[];
  /** Ids and tokens made by earlier steps, read by later ones. */
  people: Record<string, Person>;
  ids: Record<string, string>;
  jpeg: Buffer;
  call(method: Method, url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  /** Calls as the operator (admin token). */
  admin(method: Method, url: string, options?: Omit<CallOptions, 'token'>): Promise<LightMyRequestResponse>;
  /** Runs a step; what it throws is recorded and the scenario goes on. */
  step(name: string, run: () => Promise<void>): Promise<void>;
  person(key: string): Person;
  id(key: string): string;
}

function payloadOf(options: CallOptions): { headers: Record<string, string>; payload?: string | Buffer } {
  if (options.json !== undefined) return { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(options.json) };
  if (options.form !== undefined) return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: options.form };
  if (options.multipart) {
    const { fields, file } = options.multipart;
    const body = multipartBody(fields, file ? [{ name: 'file', ...file }] : []);
    return { headers: { 'content-type': body.contentType }, payload: body.payload };
  }
  return { headers: {} };
}

export async function createWorld(t: TestApp): Promise<World> {
  const failures: string[] = [];
  const people: Record<string, Person> = {};
  const ids: Record<string, string> = {};

  async function call(method: Method, url: string, options: CallOptions = {}): Promise<LightMyRequestResponse> {
    const { headers, payload } = payloadOf(options);
    const response = await t.app.inject({
      method,
      url,
      headers: { ...headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
      ...(payload !== undefined ? { payload } : {}),
    });
    const expected = options.status ?? 200;
    if (response.statusCode !== expected) {
      // The envelope of a 500 hides its cause; the response checks kept it.
      const cause = response.statusCode >= 500 ? t.responses?.checks.at(-1)?.serverError : undefined;
      failures.push(`${method} ${url}: expected ${expected}, got ${response.statusCode} ${response.body.slice(0, 240)}${cause ? ` (server: ${cause})` : ''}`);
    }
    return response;
  }

  return {
    t,
    failures,
    people,
    ids,
    jpeg: await makeJpeg(64, 48),
    call,
    admin: (method, url, options = {}) => call(method, url, { ...options, token: t.adminToken }),
    async step(name, run) {
      try {
        await run();
      } catch (error) {
        failures.push(`step "${name}" stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    person(key) {
      const found = people[key];
      if (!found) throw new Error(`no person "${key}" (an earlier step failed)`);
      return found;
    },
    id(key) {
      const found = ids[key];
      if (!found) throw new Error(`no id "${key}" (an earlier step failed)`);
      return found;
    },
  };
}

/** A field of a JSON answer, or an error naming what was missing. */
export function field<T>(response: LightMyRequestResponse, pick: (body: never) => T | undefined, what: string): T {
  let value: T | undefined;
  try {
    value = pick(response.json() as never);
  } catch {
    value = undefined;
  }
  if (value === undefined || value === null) throw new Error(`no ${what} in ${response.statusCode} ${response.body.slice(0, 200)}`);
  return value;
}
