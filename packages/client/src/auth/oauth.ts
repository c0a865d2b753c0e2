import { errorFromResponse, readBody } from '../errors.js';
import type { TokenAnswer } from '../types.js';

export type FetchLike = (input: Request) => Promise<Response>;

/** The platform's fetch, looked up at each call so a test or polyfill installed later is used. */
export const platformFetch: FetchLike = (input) => globalThis.fetch(input);

/** The client credentials a token request carries: a public client sends only its id. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
}

/** `base` without trailing slashes, so paths can be appended. */
export function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * POST /oauth/token with a form body. A confidential client authenticates with HTTP Basic (each part
 * form-encoded first, RFC 6749 section 2.3.1); a public client names itself in the body.
 */
export async function tokenRequest(
  baseUrl: string,
  client: ClientCredentials,
  form: Record<string, string>,
  fetchImpl: FetchLike = platformFetch,
): Promise<TokenAnswer> {
  const body = new URLSearchParams(form);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (client.clientSecret === undefined) body.set('client_id', client.clientId);
  else headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`)}`;
  const response = await fetchImpl(new Request(`${trimBase(baseUrl)}/oauth/token`, { method: 'POST', headers, body: body.toString() }));
  const parsed = await readBody(response);
  if (!response.ok) throw errorFromResponse(response, parsed);
  return parsed as TokenAnswer;
}
