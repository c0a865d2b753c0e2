import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClientsService, OAuthClient } from '../clients.service.js';
import { oauthError } from '../oauth-errors.js';

/**
 * Client authentication at the token endpoint (RFC 6749 section 2.3): HTTP Basic, or client_id and
 * client_secret in the form body, or client_id alone for a public client. Basic credentials are
 * tried form-url-decoded first (RFC 6749 section 2.3.1, as standard OAuth clients send them) and then
 * as written (as the original's SDKs send them).
 */
interface Presented {
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** One or two readings of the same credentials, the preferred first. */
  candidates: Array<{ clientId: string; secret: string | null }>;
}

const CHALLENGE = { 'www-authenticate': 'Basic realm="parley", charset="UTF-8"' };

function invalidClient(description: string) {
  return oauthError('invalid_client', description, CHALLENGE);
}

function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function basicCredentials(header: string): Presented | null {
  const match = /^Basic[ \t]+([A-Za-z0-9+/=._~-]+)[ \t]*$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const raw = { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  const clientId = formDecode(raw.clientId);
  const secret = formDecode(raw.secret);
  const candidates = clientId !== null && secret !== null ? [{ clientId, secret }] : [];
  if (!candidates.some((candidate) => candidate.clientId === raw.clientId && candidate.secret === raw.secret)) candidates.push(raw);
  return { method: 'client_secret_basic', candidates };
}

/** What the request presents; no database work yet. */
export function presentedCredentials(authorization: string | undefined, form: URLSearchParams): Presented {
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (authorization !== undefined && /^Basic\b/i.test(authorization)) {
    const basic = basicCredentials(authorization);
    if (basic === null) throw invalidClient('The Basic credentials could not be read: send base64(client_id:client_secret).');
    if (bodySecret !== null) throw oauthError('invalid_request', 'Send the client credentials one way only: Basic or the form body.');
    if (bodyId !== null && !basic.candidates.some((candidate) => candidate.clientId === bodyId)) {
      throw invalidClient('client_id in the body differs from the Basic credentials.');
    }
    return basic;
  }
  if (bodyId === null || bodyId === '') throw invalidClient('Client authentication failed: no client credentials were sent.');
  return bodySecret !== null
    ? { method: 'client_secret_post', candidates: [{ clientId: bodyId, secret: bodySecret }] }
    : { method: 'none', candidates: [{ clientId: bodyId, secret: null }] };
}

/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export async function authenticateClient(clients: ClientsService, presented: Presented): Promise<OAuthClient> {
  const lookedUp = new Map<string, OAuthClient | null>();
  for (const candidate of presented.candidates) {
    if (candidate.clientId.length > 64) continue;
    let client = lookedUp.get(candidate.clientId);
    if (client === undefined) {
      client = await clients.findForToken(candidate.clientId);
      lookedUp.set(candidate.clientId, client);
    }
    if (client === null) continue;
    if (client.isPublic) {
      if (presented.method === 'none') return client;
      continue;
    }
    const expected = clients.secretOf(client);
    if (candidate.secret !== null && expected !== null && sameSecret(candidate.secret, expected)) return client;
  }
  throw invalidClient('Client authentication failed.');
}
