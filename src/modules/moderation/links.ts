/**
 * Links in user text, for the whitelist: http(s) URLs (any scheme, in fact: `ftp://x` is a link too)
 * and bare domains such as `example.com/path`. Hand-written scanning over whitespace-separated tokens;
 * the only regular expressions are fixed single character classes, so the cost is linear in the text.
 *
 * Parsing follows what browsers do where it matters for an allow-list: the host is what follows the
 * last `@` of the authority, the authority ends at `/`, `\`, `?` or `#`, extra slashes after the scheme
 * are skipped, fullwidth and ideographic dots are dots, and `.`/`..` path segments are resolved.
 */

/** A link found in text: its host (lower case, no port) and its path ("" or "/a/b", no trailing slash). */
export interface Link {
  text: string;
  host: string;
  path: string;
}

const TOKEN = /[^\s<>"'`]+/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const HOST_CHAR = /[\p{L}\p{N}\p{M}.-]/u;
const LABEL_CHAR = /[\p{L}\p{N}\p{M}-]/u;
const LETTER = /[\p{L}\p{M}]/u;
const LEADING_PUNCTUATION = '([{<*_~\'"';
const TRAILING_PUNCTUATION = '.,;:!?)]}>*_~\'"';

// Generic TLDs in common use and every country-code TLD. A bare "word.word" is a link only when its
// last label is one of these (so "Node.js" and "v1.2" are not); with a scheme, any host is a link.
const GENERIC_TLDS =
  'com net org edu gov mil int info biz name pro mobi asia aero coop museum jobs tel travel xxx post app dev ai io co me tv cc ' +
  'xyz online site top club shop store tech blog cloud live news space website world life email link click page one vip win ' +
  'fun art design agency media digital network solutions systems services social chat game games wiki today guru ninja ' +
  'center company host lol pics photo photos video music academy education school group team zone plus best porn sex';
const COUNTRY_TLDS =
  'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz ca cd cf cg ch ' +
  'ci ck cl cm cn cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm ' +
  'gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la ' +
  'lb lc li lk lr ls lt lu lv ly ma mc md mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np ' +
  'nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st ' +
  'su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw';
const KNOWN_TLDS = new Set(`${GENERIC_TLDS} ${COUNTRY_TLDS}`.split(' '));

/**
 * DNS limits: a host name of at most 253 characters, labels of at most 63. Whitelist rules must keep
 * them (a rule names a real host). Links found in text need not: a host-like run that breaks them is
 * still a link, because browsers and linkifiers do not check DNS lengths before making it clickable,
 * and an over-long host must not be a way to slip a link past the whitelist. The matcher never allows
 * such a host (see hostWithinDnsLimits).
 */
const MAX_HOST_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/** ASCII letters, digits, '-' and '.' by table; other characters by Unicode class. */
const ASCII_HOST = new Uint8Array(128);
for (let code = 0; code < 128; code++) ASCII_HOST[code] = /[A-Za-z0-9.-]/.test(String.fromCharCode(code)) ? 1 : 0;

function isHostChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 128 ? ASCII_HOST[code] === 1 : HOST_CHAR.test(char);
}

function isLabelChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 128 ? ASCII_HOST[code] === 1 && code !== 46 : LABEL_CHAR.test(char);
}

/** Fullwidth letters and dots read as ASCII, ideographic full stops as dots (as IDNA maps them). */
function mapDots(token: string): string {
  if (!NON_ASCII.test(token)) return token;
  return token.normalize('NFKC').replaceAll('\u3002', '.').replaceAll('\uff0e', '.').replaceAll('\uff61', '.');
}

/** Strips punctuation that frames a link in prose: "(see example.com)." -> "example.com". */
function trimPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && LEADING_PUNCTUATION.includes(token.charAt(start))) start++;
  let open = 0;
  let close = 0;
  for (let i = start; i < end; i++) {
    const char = token.charAt(i);
    if (char === '(') open++;
    else if (char === ')') close++;
  }
  while (end > start && TRAILING_PUNCTUATION.includes(token.charAt(end - 1))) {
    // A closing parenthesis that closes one inside the link stays: en.wikipedia.org/wiki/Foo_(bar)
    if (token.charAt(end - 1) === ')') {
      if (open >= close) break;
      close--;
    }
    end--;
  }
  return token.slice(start, end);
}

function trimDotsAndHyphens(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '.' || text[start] === '-')) start++;
  while (end > start && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
  return text.slice(start, end);
}

/** "/a/./b/../c/" -> "/a/c"; backslashes are slashes; "" for the root. Percent-encoded dots count. */
export function normalizePath(raw: string): string {
  const segments: string[] = [];
  for (const segment of raw.replaceAll('\\', '/').split('/').slice(1)) {
    const lower = segment.toLowerCase();
    if (lower === '.' || lower === '%2e') continue;
    if (lower === '..' || lower === '.%2e' || lower === '%2e.' || lower === '%2e%2e') {
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  while (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}

/** The labels of a host name, or null when one is empty or holds a character no label may; linear in the host. */
function labelsOf(host: string, withinDnsLimits: boolean): string[] | null {
  if (withinDnsLimits && host.length > MAX_HOST_LENGTH) return null;
  const labels = host.split('.');
  for (const label of labels) {
    if (label.length === 0 || (withinDnsLimits && label.length > MAX_LABEL_LENGTH)) return null;
    for (const char of label) if (!isLabelChar(char)) return null;
  }
  return labels;
}

/** Whether a host keeps DNS's length limits; one pass, so it is safe on a 100,000-character host. */
export function hostWithinDnsLimits(host: string): boolean {
  if (host.length > MAX_HOST_LENGTH) return false;
  let labelStart = 0;
  for (let i = 0; i <= host.length; i++) {
    if (i === host.length || host.charCodeAt(i) === 46) {
      if (i - labelStart > MAX_LABEL_LENGTH) return false;
      labelStart = i + 1;
    }
  }
  return true;
}

function isKnownTld(tld: string): boolean {
  if (!NON_ASCII.test(tld)) return KNOWN_TLDS.has(tld) || (tld.startsWith('xn--') && tld.length > 4);
  if ([...tld].length < 2) return false;
  for (const char of tld) if (!LETTER.test(char)) return false;
  return true;
}

/**
 * A bare host is a domain when it has two or more labels and a known-looking top-level one. Only its
 * shape counts, not DNS lengths: `a.a.(...).a.com` of 100,000 characters is a link (one never allowed).
 */
export function looksLikeDomain(host: string): boolean {
  const labels = labelsOf(host, false);
  return labels !== null && labels.length >= 2 && isKnownTld(labels[labels.length - 1] as string);
}

/** Host and path of what follows `scheme://` (or of a rule without a scheme). */
export function parseAuthorityAndPath(text: string, from: number): { host: string; path: string } {
  let start = from;
  while (start < text.length && (text[start] === '/' || text[start] === '\\')) start++;
  let end = start;
  while (end < text.length && !'/\\?#'.includes(text.charAt(end))) end++;
  let authority = text.slice(start, end);
  const at = authority.lastIndexOf('@');
  if (at !== -1) authority = authority.slice(at + 1);
  let host: string;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    host = close === -1 ? authority : authority.slice(0, close + 1);
  } else {
    const colon = authority.indexOf(':');
    host = colon === -1 ? authority : authority.slice(0, colon);
  }
  host = host.toLowerCase();
  while (host.endsWith('.')) host = host.slice(0, -1);
  let pathEnd = end;
  while (pathEnd < text.length && text[pathEnd] !== '?' && text[pathEnd] !== '#') pathEnd++;
  return { host, path: normalizePath(text.slice(end, pathEnd)) };
}

/** Bare domains inside a token without a scheme: "see:example.com/a," -> example.com, /a. */
function scanBare(token: string, into: Link[]): void {
  let i = 0;
  while (i < token.length) {
    if (!isHostChar(token.charAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < token.length && isHostChar(token.charAt(j))) j++;
    const afterAt = i > 0 && token[i - 1] === '@';
    const host = trimDotsAndHyphens(token.slice(i, j)).toLowerCase();
    if (afterAt || !looksLikeDomain(host)) {
      i = j;
      continue;
    }
    let k = j;
    if (token[k] === ':') {
      let digits = k + 1;
      while (digits < token.length && token.charCodeAt(digits) >= 48 && token.charCodeAt(digits) <= 57) digits++;
      if (digits > k + 1) k = digits;
    }
    if (token[k] !== '/' && token[k] !== '\\' && token[k] !== '?' && token[k] !== '#') {
      into.push({ text: token.slice(i, k), host, path: '' });
      i = k;
      continue;
    }
    let end = k;
    while (end < token.length && token[end] !== '?' && token[end] !== '#') end++;
    into.push({ text: token.slice(i), host, path: normalizePath(token.slice(k, end)) });
    // The rest of the token is this link's path, query or fragment.
    return;
  }
}

function linksInToken(rawToken: string, into: Link[]): void {
  const token = trimPunctuation(mapDots(rawToken));
  const schemeAt = token.indexOf('://');
  if (schemeAt === -1) {
    if (token.includes('.')) scanBare(token, into);
    return;
  }
  let start = schemeAt;
  while (start > 0 && /[A-Za-z0-9+.-]/.test(token.charAt(start - 1))) start--;
  if (start > 0) scanBare(token.slice(0, start), into);
  // Trimmed again on its own: "[text](https://a.com/b)" frames the link in the token's middle.
  const url = trimPunctuation(token.slice(start));
  const { host, path } = parseAuthorityAndPath(url, schemeAt - start + 3);
  into.push({ text: url, host, path });
}

/** Every link in a text, in order. */
export function extractLinks(text: string): Link[] {
  const links: Link[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    if (token.includes('.') || token.includes('://') || NON_ASCII.test(token)) linksInToken(token, links);
  }
  return links;
}

/**
 * A whitelist rule as host + path prefix: "https://Docs.Example.com/guide/" -> docs.example.com,
 * /guide. A leading "*." is dropped (subdomains are always allowed). Null when it names no host.
 */
export function parseWhitelistRule(rule: string): { host: string; path: string } | null {
  let text = mapDots(rule.trim());
  const schemeAt = text.indexOf('://');
  if (schemeAt !== -1) text = text.slice(schemeAt + 3);
  if (text.startsWith('*.')) text = text.slice(2);
  if (/\s/u.test(text)) return null;
  const { host, path } = parseAuthorityAndPath(text, 0);
  if (host.length === 0) return null;
  if (host.startsWith('[')) return host.endsWith(']') && host.length > 2 ? { host, path } : null;
  const labels = labelsOf(host, true);
  if (labels === null) return null;
  const isIpv4 = labels.length === 4 && labels.every((label) => /^[0-9]{1,3}$/.test(label) && Number(label) <= 255);
  const tld = labels[labels.length - 1] as string;
  // A name must end in a label with a letter (not "1.2"); a single label ("localhost") is a name too.
  if (!isIpv4 && !LETTER.test(tld)) return null;
  return { host, path };
}
