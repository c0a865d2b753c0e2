/**
 * Reading an authorization request (query string or POST form) the way real clients send it
 * (docs/contract.md, Sign-in details): `+` and `%20` are spaces, a raw space is kept, a malformed escape
 * is kept as written, and an unencoded redirect_uri with its own `&` is recovered by the
 * redirect_uri step. Plain RFC form parsing: no brackets, no nesting.
 */
export const KNOWN_PARAMETERS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'prompt',
  'max_age',
  'code_challenge',
  'code_challenge_method',
  'response_mode',
  'login_hint',
  'id_token_hint',
  'request',
  'request_uri',
  'display',
  'ui_locales',
  'claims_locales',
  'acr_values',
  'claims',
  'registration',
]);

export interface RawPair {
  name: string;
  value: string;
  rawValue: string;
}

export interface AuthorizationParameters {
  pairs: RawPair[];
  /** Names that appeared more than once (RFC 6749 section 3.1 forbids it). */
  repeated: Set<string>;
  /** The first value of a parameter; an empty value counts as absent (RFC 6749 section 3.1). */
  get(name: string): string | null;
}

function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Decode what is well-formed and keep the rest as written.
    return spaced.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

export function parseAuthorizationParameters(text: string): AuthorizationParameters {
  const pairs: RawPair[] = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  const values = new Map<string, string>();
  for (const segment of text.split('&')) {
    if (segment === '') continue;
    const equals = segment.indexOf('=');
    const name = decode(equals < 0 ? segment : segment.slice(0, equals));
    const rawValue = equals < 0 ? '' : segment.slice(equals + 1);
    const value = decode(rawValue);
    pairs.push({ name, value, rawValue });
    if (value === '') continue;
    if (seen.has(name)) repeated.add(name);
    else {
      seen.add(name);
      values.set(name, value);
    }
  }
  return { pairs, repeated, get: (name) => values.get(name) ?? null };
}

/**
 * redirect_uri as written (its `%xx` and `+` undecoded, as an unencoded URI carries them), then
 * extended by each following parameter that is not an OAuth one:
 * `redirect_uri=https://app/cb?a=1&b=2&state=x` sent unencoded yields `https://app/cb?a=1&b=2`.
 * The caller accepts a candidate only when it equals a registered URI exactly, so none longer than
 * `maxLength` (the longest registered) is built: thousands of short parameters after redirect_uri
 * made as many ever longer strings (a 14 KB request held the event loop for 300 ms).
 */
export function redirectUriCandidates(params: AuthorizationParameters, maxLength: number): string[] {
  const start = params.pairs.findIndex((pair) => pair.name === 'redirect_uri');
  const first = params.pairs[start];
  if (start < 0 || first === undefined) return [];
  const candidates: string[] = [first.rawValue];
  let raw = first.rawValue;
  let decoded = first.value;
  for (const pair of params.pairs.slice(start + 1)) {
    if (KNOWN_PARAMETERS.has(pair.name)) break;
    raw += `&${pair.name}=${pair.rawValue}`;
    decoded += `&${pair.name}=${pair.value}`;
    if (raw.length > maxLength && decoded.length > maxLength) break;
    candidates.push(raw, decoded);
  }
  return candidates;
}

/** The request again as a clean query string (known parameters only), e.g. for the login page. */
export function normalizedQuery(params: AuthorizationParameters, redirectUri: string | null): string {
  const query = new URLSearchParams();
  for (const name of KNOWN_PARAMETERS) {
    const value = name === 'redirect_uri' ? redirectUri : params.get(name);
    if (value !== null) query.set(name, value);
  }
  return query.toString();
}
