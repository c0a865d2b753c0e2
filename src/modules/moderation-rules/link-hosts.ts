/**
 * How a browser reads the host of a link, and how a whitelist rule names one: the character classes of
 * host names, the top-level domains a bare domain may end in, DNS's length limits, the WHATWG URL
 * parser's canonical host (IDNA mapping, IPv4 forms), and paths with `.` and `..` resolved.
 */

import { domainToUnicode } from 'node:url';

const NON_ASCII = /[^\x00-\x7f]/;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const DEFAULT_IGNORABLES = /\p{Default_Ignorable_Code_Point}/gu;
const HOST_CHAR = /[\p{L}\p{N}\p{M}.-]/u;
const LABEL_CHAR = /[\p{L}\p{N}\p{M}-]/u;
const LETTER = /[\p{L}\p{M}]/u;

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

/** Letters, digits, marks, `.` and `-`, and the invisible characters IDNA drops (a soft hyphen splits no host). */
export function isHostChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 128 ? ASCII_HOST[code] === 1 : HOST_CHAR.test(char) || DEFAULT_IGNORABLE.test(char);
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

/** Fullwidth, ideographic and halfwidth full stops: IDNA reads them as dots. */
const DOT_LIKE = /[\u3002\uff0e\uff61]/gu;
/**
 * A host text longer than this (invisible characters aside) maps to no host within DNS's 253
 * characters, so it is refused unparsed: IDNA's punycode costs the square of a label's length.
 */
const MAX_HOST_TEXT = 1024;
/** Fails hostWithinDnsLimits, so no rule allows it. */
const OVERSIZED_HOST = '-'.repeat(MAX_HOST_LENGTH + 1);

/** Ideographic and fullwidth full stops read as dots; one UTF-16 unit each, so indexes stay put. */
export function mapDotLikes(token: string): string {
  return NON_ASCII.test(token) ? token.replace(DOT_LIKE, '.') : token;
}

/** A host run as read for its shape (is it a domain?): compatibility forms folded, invisibles dropped, lower case. */
export function mapHost(host: string): string {
  let mapped = NON_ASCII.test(host) ? mapDots(host).replace(DEFAULT_IGNORABLES, '') : host;
  mapped = mapped.toLowerCase();
  while (mapped.endsWith('.')) mapped = mapped.slice(0, -1);
  return mapped;
}

/** ASCII labels whose last one is a name, not a number: the URL parser would only lower-case them. */
const PLAIN_HOST = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
const TOP_LABEL_CHARS = /^[a-z0-9_-]+$/;
const UNICODE_TOP_LABEL = /^[\p{L}\p{M}\p{N}-]+$/u;

/**
 * The host a browser connects to for the host text of an authority: parsed by the WHATWG URL parser
 * Node ships (the one browsers follow): percent-decoded, IDNA-mapped (fullwidth and compatibility forms,
 * invisible characters dropped, `ẞ` to `ss`), IPv4 forms made dotted (`0x7f.1` is 127.0.0.1), lower
 * case, without a trailing dot. '' when no browser reaches it: the parser refuses it (`ev\u2066il.com`),
 * or its top label holds what no top-level domain can, punctuation or a symbol (`example.com”`:
 * authorityHosts then judges the text cut before it). OVERSIZED_HOST beyond MAX_HOST_TEXT.
 */
export function canonicalHost(text: string): string {
  if (PLAIN_HOST.test(text)) {
    if (text.length > MAX_HOST_TEXT) return OVERSIZED_HOST;
    const top = text.slice(text.lastIndexOf('.') + 1);
    if (!NUMERIC_LABEL.test(top)) return text.toLowerCase();
  } else if (text.length > MAX_HOST_TEXT && text.replace(DEFAULT_IGNORABLES, '').length > MAX_HOST_TEXT) {
    return OVERSIZED_HOST;
  }
  let host: string;
  try {
    host = new URL(`http://${text}`).hostname;
  } catch {
    return '';
  }
  while (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0) return '';
  if (host.startsWith('[')) return host;
  const top = host.slice(host.lastIndexOf('.') + 1);
  if (!TOP_LABEL_CHARS.test(top)) return '';
  if (top.startsWith('xn--') && !UNICODE_TOP_LABEL.test(domainToUnicode(top))) return '';
  return host;
}

/** Where the top label of a host text first holds a character no label may, or -1 (a renderer would end the link there). */
export function junkInTopLabel(text: string): number {
  const top = text.lastIndexOf('.') + 1;
  for (let i = top; i < text.length; i++) if (!isHostChar(text.charAt(i)) || text.charCodeAt(i) === 46) return i;
  return -1;
}

/**
 * A whitelist rule as host + path prefix: "https://Docs.Example.com/guide/" -> docs.example.com,
 * /guide; the host in canonicalHost's form. A leading "*." is dropped (subdomains are always allowed). Null when it names no host.
 */
export function parseWhitelistRule(rule: string): { host: string; path: string } | null {
  let text = mapDots(rule.trim());
  const schemeAt = text.indexOf('://');
  if (schemeAt !== -1) text = text.slice(schemeAt + 3);
  if (text.startsWith('*.')) text = text.slice(2);
  if (/\s/u.test(text)) return null;
  const { host, path } = parseAuthorityAndPath(text, 0);
  if (host.length === 0) return null;
  if (host.startsWith('[')) {
    const literal = host.endsWith(']') && host.length > 2 ? canonicalHost(host) : '';
    return literal === '' ? null : { host: literal, path };
  }
  const labels = labelsOf(host, true);
  if (labels === null) return null;
  const isIpv4 = labels.length === 4 && labels.every((label) => /^[0-9]{1,3}$/.test(label) && Number(label) <= 255);
  const tld = labels[labels.length - 1] as string;
  // A name must end in a label with a letter (not "1.2"); a single label ("localhost") is a name too.
  if (!isIpv4 && !LETTER.test(tld)) return null;
  // Compared in the form links are: an IDN rule as the browser's punycode (пример.рф: xn--e1afmkfd.xn--p1ai).
  const canonical = canonicalHost(host);
  return canonical === '' ? null : { host: canonical, path };
}
