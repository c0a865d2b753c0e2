/**
 * Links in user text, for the whitelist: http(s) URLs (any scheme, in fact: `ftp://x` is a link too)
 * and bare domains such as `example.com/path`. Hand-written scanning over whitespace-separated runs;
 * the only regular expressions are fixed single character classes, so the cost is linear in the text.
 *
 * A link must be allowed however it is read. A browser reads a URL to the first whitespace: the host
 * is what follows the last `@` of the authority, the authority ends at an ASCII `/`, `\`, `?` or `#`
 * (never at a fullwidth look-alike: `http://good.com／@evil.com` goes to evil.com), extra slashes
 * after the scheme are skipped, and `.`/`..` path segments are resolved. A renderer (Markdown, a
 * linkifier) may end the link earlier, at a quote, a bracket or other punctuation, and start another
 * right after it. So the scan takes every host either reading gives (authorityHosts), and every link
 * that starts after such a stop. Fullwidth and ideographic dots are dots, and hosts are compared in
 * their compatibility form (`ｅｖｉｌ．ｃｏｍ` is evil.com), as browsers map them.
 */

import { domainToUnicode } from 'node:url';

/**
 * A link found in text: its host as a browser connects to it (canonicalHost) and its path ("" or
 * "/a/b", no trailing slash; PATH_NOT_RESOLVED once a text's path budget is spent).
 */
export interface Link {
  text: string;
  host: string;
  path: string;
}

/** Runs without whitespace: a browser reads a URL up to the first space, whatever renderers do. */
const TOKEN = /\S+/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const DEFAULT_IGNORABLES = /\p{Default_Ignorable_Code_Point}/gu;
const HOST_CHAR = /[\p{L}\p{N}\p{M}.-]/u;
const LABEL_CHAR = /[\p{L}\p{N}\p{M}-]/u;
const LETTER = /[\p{L}\p{M}]/u;
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

/** Letters, digits, marks, `.` and `-`, and the invisible characters IDNA drops (a soft hyphen splits no host). */
function isHostChar(char: string): boolean {
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

/**
 * Characters at which a renderer (a Markdown link target, a linkifier, an HTML attribute) may end a link
 * that a browser would read further: quotes, brackets, and the non-ASCII punctuation and symbols IDNA does
 * not turn into letters (`／`, `＠`, `」`, emoji; not `Ⓔ`, which a browser reads as `e`). A link is judged
 * by each reading; see authorityHosts.
 */
const HARD_STOP_ASCII = new Uint8Array(128);
for (const char of '<>"\'`()[]{}|^') HARD_STOP_ASCII[char.charCodeAt(0)] = 1;
const NON_ASCII_STOP = /^[\p{P}\p{S}]$/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const nonAsciiStops = new Map<number, boolean>();
/** Fullwidth, ideographic and halfwidth full stops: IDNA reads them as dots. */
const DOT_LIKE = /[\u3002\uff0e\uff61]/gu;
/** More links than this in one whitespace-free run is not prose: the run is refused whole (keeps the scan linear). */
const MAX_LINKS_PER_TOKEN = 100;
/** Host readings (authorityHosts) one run may take; a run that needs more is refused whole. */
const MAX_READINGS_PER_TOKEN = 1000;
/**
 * Characters of paths one text may resolve for path rules. A run of links shares one long tail (each
 * link's path runs to the end of the run), so resolving every path would be quadratic; past the
 * budget a link's path is PATH_NOT_RESOLVED, which no rule path allows. Four times the longest text.
 */
const PATH_BUDGET = 200_000;
const PATH_NOT_RESOLVED = '/\u0000';
/**
 * A host text longer than this (invisible characters aside) maps to no host within DNS's 253
 * characters, so it is refused unparsed: IDNA's punycode costs the square of a label's length.
 */
const MAX_HOST_TEXT = 1024;
/** Fails hostWithinDnsLimits, so no rule allows it. */
const OVERSIZED_HOST = '-'.repeat(MAX_HOST_LENGTH + 1);

function isHardStop(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 128) return HARD_STOP_ASCII[code] === 1;
  if (code >= 0xdc00 && code <= 0xdfff) return false; // the second half of a pair; its first half decided
  const codePoint = text.codePointAt(index) as number;
  let stop = nonAsciiStops.get(codePoint);
  if (stop === undefined) {
    const char = String.fromCodePoint(codePoint);
    stop = NON_ASCII_STOP.test(char) && !LETTER_OR_DIGIT.test(char.normalize('NFKC'));
    nonAsciiStops.set(codePoint, stop);
  }
  return stop;
}

/** Ideographic and fullwidth full stops read as dots; one UTF-16 unit each, so indexes stay put. */
function mapDotLikes(token: string): string {
  return NON_ASCII.test(token) ? token.replace(DOT_LIKE, '.') : token;
}

/** A host run as read for its shape (is it a domain?): compatibility forms folded, invisibles dropped, lower case. */
function mapHost(host: string): string {
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
function canonicalHost(text: string): string {
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
function junkInTopLabel(text: string): number {
  const top = text.lastIndexOf('.') + 1;
  for (let i = top; i < text.length; i++) if (!isHostChar(text.charAt(i)) || text.charCodeAt(i) === 46) return i;
  return -1;
}

/**
 * Where a link ends once the punctuation framing it in prose is left out: the token's trailing run of
 * punctuation goes, except a `)` that closes one opened inside the link (en.wikipedia.org/wiki/Foo_(bar)).
 * Counted once per token, so each link's end is found without rescanning the token.
 */
class LinkEnds {
  /** `(` minus `)` in token[0, i). */
  private readonly balance: Int32Array;
  /** Where the trailing run of punctuation starts. */
  private readonly tailStart: number;
  /** The positions of the `)` in that run, last first. */
  private readonly tailCloses: number[] = [];

  constructor(token: string) {
    this.balance = new Int32Array(token.length + 1);
    for (let i = 0; i < token.length; i++) {
      const code = token.charCodeAt(i);
      this.balance[i + 1] = (this.balance[i] as number) + (code === 40 ? 1 : code === 41 ? -1 : 0);
    }
    let tailStart = token.length;
    while (tailStart > 0 && TRAILING_PUNCTUATION.includes(token.charAt(tailStart - 1))) {
      tailStart--;
      if (token.charCodeAt(tailStart) === 41) this.tailCloses.push(tailStart);
    }
    this.tailStart = tailStart;
  }

  /**
   * Walking back through the tail, each `)` is dropped while the link holds more `)` than `(`; so the
   * link keeps the tail up to its (excess)-th `)` from the end, or none of the tail.
   */
  endOf(start: number): number {
    const excess = -((this.balance[this.balance.length - 1] as number) - (this.balance[start] as number));
    const keep = this.tailCloses[Math.max(0, excess)];
    return Math.max(start, keep === undefined ? this.tailStart : keep + 1);
  }
}

/** The first hard stop at or after `from` and before `to`, or `to`: one table per token, built on first use. */
function nextHardStop(scan: TokenScan, from: number, to: number): number {
  if (scan.stops === null) {
    const { token } = scan;
    scan.stops = new Int32Array(token.length + 1);
    scan.stops[token.length] = token.length;
    for (let i = token.length - 1; i >= 0; i--) scan.stops[i] = isHardStop(token, i) ? i : (scan.stops[i + 1] as number);
  }
  return from >= to ? to : Math.min(scan.stops[from] as number, to);
}

const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
const LETTER_ASCII = /[A-Za-z]/;
/** Schemes a browser reads an authority after with any mix of slashes, or none: `http:evil.zip`, `http:\evil.zip`. */
const SPECIAL_SCHEMES = new Set(['http', 'https', 'ftp', 'ws', 'wss']);

/** Where the scheme before the `:` at `colon` begins (a letter, then letters, digits, `+`, `-`, `.`), or -1. */
function schemeStart(token: string, colon: number): number {
  let start = colon;
  while (start > 0 && SCHEME_CHAR.test(token.charAt(start - 1))) start--;
  while (start < colon && !LETTER_ASCII.test(token.charAt(start))) start++;
  return start < colon ? start : -1;
}

/** What one text's scan shares: the path budget, and the hosts already parsed. */
interface TextScan {
  pathsLeft: number;
  hosts: Map<string, string>;
  /** Host runs already judged by looksLikeDomain. */
  domains: Map<string, boolean>;
}

interface TokenScan {
  raw: string;
  /** `raw` with dot-like characters as dots. */
  token: string;
  ends: LinkEnds | null;
  /** stops[i]: the first hard stop at or after i (nextHardStop). */
  stops: Int32Array | null;
  /** Readings of authorities this token may still take before it is refused whole. */
  readingsLeft: number;
  /** The first `?` or `#` at or after `queryFrom` (links are met left to right, so searches are shared). */
  queryFrom: number;
  queryAt: number;
  /** The first `@` at or after `atFrom`. */
  atFrom: number;
  atAt: number;
  into: Link[];
  /** Links this token may still add before it is refused whole. */
  budget: number;
  text: TextScan;
}

/** The first position at or after `from` where `code` stands, or the token's length; cached per search. */
function nextCode(scan: TokenScan, code: 63 | 64, from: number): number {
  const { token } = scan;
  if (code === 64) {
    if (from < scan.atFrom || from > scan.atAt) {
      let at = from;
      while (at < token.length && token.charCodeAt(at) !== 64) at++;
      scan.atFrom = from;
      scan.atAt = at;
    }
    return scan.atAt;
  }
  if (from < scan.queryFrom || from > scan.queryAt) {
    let at = from;
    while (at < token.length && token.charCodeAt(at) !== 63 && token.charCodeAt(at) !== 35) at++;
    scan.queryFrom = from;
    scan.queryAt = at;
  }
  return scan.queryAt;
}

function cachedHost(scan: TokenScan, text: string): string {
  let host = scan.text.hosts.get(text);
  if (host === undefined) {
    host = canonicalHost(text);
    if (host === '') {
      // Unreachable as written; a renderer would end the link before the junk of its top label.
      const junk = junkInTopLabel(text);
      if (junk > 0) host = canonicalHost(text.slice(0, junk));
    }
    scan.text.hosts.set(text, host);
  }
  return host;
}

/**
 * Every host a reading of the authority `token[from, to)` can give. A browser takes the text after the
 * last `@` before `/`, `\`, `?` or `#`; a renderer may end the link at a hard stop first, and then the
 * host is what follows the last `@` before that stop. `https://evil.com'@good.com` is evil.com to a
 * linkifier that stops at the quote and good.com to a browser: both are judged.
 *
 * A renderer's reading whose host holds an earlier stop: the labels up to the one holding that stop are
 * no rule's, so whether it is allowed is decided by the labels after that one, as for a subdomain
 * (`x'y.docs.good.com` is allowed where docs.good.com is). So each such reading costs the labels
 * between two stops, and the whole authority is read in linear time. The browser's reading is the
 * whole host, always.
 */
function authorityHosts(scan: TokenScan, from: number, to: number, needsDot: boolean): string[] {
  const { token } = scan;
  const hosts = new Set<string>();
  const add = (start: number, end: number) => {
    if (start >= end || scan.readingsLeft === 0) return;
    scan.readingsLeft--;
    const host = cachedHost(scan, token.slice(start, end));
    if (host !== '' && (!needsDot || host.includes('.'))) hosts.add(host);
  };
  /** A renderer's reading whose host is token[start, end), the last stop in it at `lastStop` (-1: none). */
  const read = (start: number, lastStop: number, end: number) => {
    if (lastStop === -1) return add(start, end);
    let dot = lastStop + 1;
    while (dot < end && token.charCodeAt(dot) !== 46) dot++;
    if (dot < end) add(dot + 1, end);
  };
  let partStart = from;
  while (partStart <= to) {
    const partEnd = Math.min(nextCode(scan, 64, partStart), to);
    const isLast = partEnd === to;
    const close = token.charCodeAt(partStart) === 91 ? token.indexOf(']', partStart) : -1;
    if (close !== -1 && close < partEnd) {
      // An IPv6 literal: its brackets are its own, not stops.
      if (isLast || nextHardStop(scan, close + 1, partEnd) < partEnd) add(partStart, close + 1);
    } else {
      let hostEnd = partStart;
      while (hostEnd < partEnd && token.charCodeAt(hostEnd) !== 58) hostEnd++;
      let lastStop = -1;
      for (let i = nextHardStop(scan, partStart, hostEnd); i < hostEnd; i = nextHardStop(scan, i + 1, hostEnd)) {
        read(partStart, lastStop, i);
        lastStop = i;
      }
      if (isLast) add(partStart, hostEnd);
      // A renderer's stop after the last one in the host, or in the port, ends the reading here.
      if ((isLast && lastStop !== -1) || nextHardStop(scan, hostEnd, partEnd) < partEnd) read(partStart, lastStop, hostEnd);
    }
    partStart = partEnd + 1;
  }
  return [...hosts];
}

/**
 * A link whose path is resolved on first read: only a host with path rules needs it. Past the text's
 * path budget it is PATH_NOT_RESOLVED.
 */
function linkOf(scan: TokenScan, text: string, host: string, rawPath: string): Link {
  let path: string | undefined;
  const shared = scan.text;
  return {
    text,
    host,
    get path() {
      if (path === undefined) {
        if (rawPath.length > shared.pathsLeft) path = PATH_NOT_RESOLVED;
        else {
          shared.pathsLeft -= rawPath.length;
          path = normalizePath(rawPath);
        }
      }
      return path;
    },
  };
}

function linkEnd(scan: TokenScan, start: number): number {
  scan.ends ??= new LinkEnds(scan.token);
  return scan.ends.endOf(start);
}

/** Refuses the whole run: a link with no host, which no rule allows, and nothing more from it. */
function refuseWhole(scan: TokenScan): void {
  scan.budget = 0;
  scan.into.push({ text: scan.raw.slice(0, 64), host: '', path: '' });
}

function push(scan: TokenScan, link: Link): boolean {
  if (scan.budget === 0) return false;
  if (--scan.budget === 0) {
    refuseWhole(scan);
    return false;
  }
  scan.into.push(link);
  return true;
}

/** A path whose last segment is `.` or `..`: the trailing dots prose trimming took off would move it. */
const DOT_SEGMENT_END = /(?:^|[/\\])(?:\.|%2e){1,2}$/i;

/**
 * A link at `start` whose authority begins at `authorityStart` (slashes there are skipped): one Link
 * per host its readings give, with the browser's path (to `?` or `#`, `.` and `..` resolved), and a
 * second path where a renderer's end (its stop) differs from the prose-trimmed one and ends in a dot
 * segment (`[x](https://a.com/docs/..)` and `<a href="https://a.com/docs/..">` go to `/`). Answers where the link ends for a renderer: the first hard stop after its authority began.
 */
function scanLink(scan: TokenScan, start: number, authorityStart: number, needsDot: boolean): number {
  const { token, raw } = scan;
  const end = linkEnd(scan, start);
  let from = authorityStart;
  while (from < end && (token[from] === '/' || token[from] === '\\')) from++;
  let authorityEnd = from;
  while (authorityEnd < end && !'/\\?#'.includes(token.charAt(authorityEnd))) authorityEnd++;
  const queryAt = nextCode(scan, 63, authorityEnd);
  const rawPath = token.slice(authorityEnd, Math.min(queryAt, end));
  const rendererEnd = nextHardStop(scan, from, token.length);
  // The path as a renderer ends it, at its stop, untrimmed: `.`/`..` at its end move it.
  const rendererPath = rendererEnd !== end && authorityEnd < Math.min(end, rendererEnd) ? token.slice(authorityEnd, Math.min(queryAt, rendererEnd)) : rawPath;
  const text = raw.slice(start, end);
  for (const host of authorityHosts(scan, from, authorityEnd, needsDot)) {
    if (!push(scan, linkOf(scan, text, host, rawPath))) return token.length;
    if (rendererPath !== rawPath && DOT_SEGMENT_END.test(rendererPath) && !push(scan, linkOf(scan, text, host, rendererPath))) return token.length;
  }
  return Math.min(rendererEnd, end);
}

/**
 * The next place at or after `from` where an authority starts, as `[linkStart, authorityStart,
 * needsDot]`, or null:
 * - `scheme://` (any scheme), or a special scheme with any mix of slashes or none (`http:evil.zip`,
 *   `http:\evil.zip`: browsers read the host after it);
 * - two slashes or backslashes at the start or after a stop (`[x](//evil.zip)`, `/\evil.zip`): relative
 *   to the page's scheme; the host needs a dot, so `//TODO` in code is no link;
 * - `www.` where a word begins (GFM's www autolinks), whatever the top-level label.
 */
function nextLinkStart(token: string, from: number): [number, number, boolean] | null {
  for (let i = from; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code === 58) {
      const start = schemeStart(token, i);
      if (start === -1 || start < from) continue;
      const twoSlashes = token.charCodeAt(i + 1) === 47 && token.charCodeAt(i + 2) === 47;
      if (twoSlashes || SPECIAL_SCHEMES.has(token.slice(start, i).toLowerCase())) return [start, i + 1, false];
    } else if ((code === 47 || code === 92) && (i === 0 || isHardStop(token, i - 1) || token.charCodeAt(i - 1) === 61)) {
      const next = token.charCodeAt(i + 1);
      if (next === 47 || next === 92) return [i, i + 2, true];
    } else if ((code === 119 || code === 87) && token.slice(i, i + 4).toLowerCase() === 'www.') {
      const before = i === 0 ? 32 : token.charCodeAt(i - 1);
      if (before !== 64 && !isHostChar(String.fromCharCode(before))) return [i, i, true];
    }
  }
  return null;
}

function isDomainRun(shared: TextScan, run: string): boolean {
  let domain = shared.domains.get(run);
  if (domain === undefined) {
    domain = looksLikeDomain(mapHost(run));
    shared.domains.set(run, domain);
  }
  return domain;
}

/**
 * Bare domains in `token[from, to)`: "see:example.com/a," -> example.com, /a. A run after `@` is an
 * e-mail address. A domain with a path takes the browser's path; the rest of it up to the next hard
 * stop is that path, its query or fragment, and holds no new link.
 */
function scanBare(scan: TokenScan, from: number, to: number): void {
  const { token, raw } = scan;
  let i = from;
  while (i < to) {
    if (!isHostChar(token.charAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < to && isHostChar(token.charAt(j))) j++;
    let hostStart = i;
    let hostEnd = j;
    while (hostStart < hostEnd && (token[hostStart] === '.' || token[hostStart] === '-')) hostStart++;
    while (hostEnd > hostStart && (token[hostEnd - 1] === '.' || token[hostEnd - 1] === '-')) hostEnd--;
    const afterAt = i > 0 && token.charCodeAt(i - 1) === 64;
    if (afterAt || !isDomainRun(scan.text, token.slice(hostStart, hostEnd))) {
      i = j;
      continue;
    }
    const host = cachedHost(scan, token.slice(hostStart, hostEnd));
    let k = j;
    if (token[k] === ':') {
      let digits = k + 1;
      while (digits < to && token.charCodeAt(digits) >= 48 && token.charCodeAt(digits) <= 57) digits++;
      if (digits > k + 1) k = digits;
    }
    if (k >= to || !'/\\?#'.includes(token.charAt(k))) {
      if (host !== '' && !push(scan, { text: raw.slice(hostStart, Math.max(hostEnd, k === j ? hostEnd : k)), host, path: '' })) return;
      i = k;
      continue;
    }
    const end = Math.max(linkEnd(scan, hostStart), k);
    const pathEnd = Math.min(nextCode(scan, 63, k), end);
    if (host !== '' && !push(scan, linkOf(scan, raw.slice(hostStart, end), host, token.slice(k, pathEnd)))) return;
    i = nextHardStop(scan, k, to);
  }
}

/**
 * The links of one whitespace-free run: each place an authority starts (nextLinkStart) begins a link,
 * unless it lies in the previous link's text as a renderer reads it (`https://a.com/https://b.com` is
 * one link to a.com; `[x](https://a.com)https://b.com` is two). Between and after them, bare domains.
 */
function linksInToken(raw: string, into: Link[], text: TextScan): void {
  const scan: TokenScan = { raw, token: mapDotLikes(raw), ends: null, stops: null, readingsLeft: MAX_READINGS_PER_TOKEN, queryFrom: 0, queryAt: -1, atFrom: 0, atAt: -1, into, budget: MAX_LINKS_PER_TOKEN, text };
  const { token } = scan;
  let cursor = 0;
  let starts = 0;
  for (let found = nextLinkStart(token, 0); found !== null && scan.budget > 0; found = nextLinkStart(token, cursor)) {
    const [start, authorityStart, needsDot] = found;
    // Each start reads up to the run's end: bounded like the links themselves, whatever they yield.
    if (++starts > MAX_LINKS_PER_TOKEN) return refuseWhole(scan);
    scanBare(scan, cursor, start);
    if (scan.budget === 0) return;
    cursor = Math.max(scanLink(scan, start, authorityStart, needsDot), authorityStart + 1);
    if (scan.readingsLeft === 0) return refuseWhole(scan);
  }
  if (scan.budget > 0) scanBare(scan, cursor, token.length);
}

/** HTML5's names for the ASCII punctuation a URL is made of (and a few invisible ones); `&#...;` covers the rest. */
const NAMED_REFERENCES: Record<string, string> = {
  amp: '&', AMP: '&', lt: '<', LT: '<', gt: '>', GT: '>', quot: '"', QUOT: '"', apos: "'", period: '.', colon: ':', sol: '/',
  bsol: '\\', commat: '@', quest: '?', num: '#', excl: '!', dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*',
  midast: '*', plus: '+', comma: ',', semi: ';', equals: '=', lsqb: '[', lbrack: '[', rsqb: ']', rbrack: ']', lowbar: '_',
  UnderBar: '_', grave: '`', DiacriticalGrave: '`', lcub: '{', lbrace: '{', rcub: '}', rbrace: '}', verbar: '|', vert: '|',
  VerticalLine: '|', Hat: '^', shy: '\u00ad', nbsp: '\u00a0', Tab: '\t', NewLine: '\n',
};
/** As HTML5 reads references in attributes (numeric ones need no `;` and take any number of digits). */
const REFERENCE = /&(?:#([0-9]+);?|#[xX]([0-9a-fA-F]+);?|([A-Za-z][A-Za-z0-9]{1,31});)/y;
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
/** White space and controls: the URL parser drops tabs and newlines, and a space in an authority goes into its user part. */
const DROPPED_IN_URL = /^[\s\x00-\x1f\x7f]$/u;
/** A URL-valued HTML attribute's name, after which `=` and a quote open its value (`<a/href="...">` too). */
const URL_ATTRIBUTE_OPENS = /(?:^|[\s"'/])(?:href|src|action|formaction|poster|cite)\s*=\s*$/i;

/**
 * The text as a Markdown or HTML renderer reads link destinations: backslash escapes taken (`\@` is
 * `@`), character references decoded (`&#46;`, `&period;`), and white space and controls inside an
 * angle-bracketed destination (`[x](<https://a.com @b.com>)`, `[1]: <...>`), inside a URL attribute
 * (`<a href="https://a.com @b.com">`) or decoded from a reference dropped, as a browser then reads the
 * URL to b.com. Its links are judged beside the text's own. One pass.
 */
function markdownReading(text: string): string {
  if (!text.includes('\\') && !text.includes('&') && !text.includes('<') && !text.includes('=')) return text;
  const parts: string[] = [];
  let copiedTo = 0;
  const replace = (at: number, length: number, by: string) => {
    parts.push(text.slice(copiedTo, at), by);
    copiedTo = at + length;
  };
  /** The character that ends the destination or attribute value being read ('' outside one). */
  let closer = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '\\' && i + 1 < text.length && ASCII_PUNCTUATION.test(text.charAt(i + 1))) {
      replace(i, 2, text.charAt(i + 1));
      i++;
    } else if (char === '&') {
      REFERENCE.lastIndex = i;
      const match = REFERENCE.exec(text);
      if (match === null) continue;
      const [reference, decimal, hex, name] = match;
      const decoded = decimal !== undefined ? codePointText(decimal, 10) : hex !== undefined ? codePointText(hex, 16) : NAMED_REFERENCES[name ?? ''];
      if (decoded === undefined) continue;
      replace(i, reference.length, DROPPED_IN_URL.test(decoded) ? '' : decoded);
      i += reference.length - 1;
    } else if (closer !== '') {
      if (char === closer || (closer === '>' && (char === '\n' || char === '<'))) closer = '';
      else if (DROPPED_IN_URL.test(char)) replace(i, 1, '');
    } else if (char === '<' && opensDestination(text, i)) {
      closer = '>';
    } else if ((char === '"' || char === "'") && URL_ATTRIBUTE_OPENS.test(text.slice(Math.max(0, i - 32), i))) {
      closer = char;
    }
  }
  if (copiedTo === 0) return text;
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

/** Whether the `<` at `at` opens a Markdown link destination: after `](` or `]:`, spaces and one line end between. */
function opensDestination(text: string, at: number): boolean {
  let i = at - 1;
  let lineEnds = 0;
  while (i >= 0 && /\s/u.test(text.charAt(i))) {
    if (text.charCodeAt(i) === 10 && ++lineEnds > 1) return false;
    i--;
  }
  return i >= 1 && text.charAt(i - 1) === ']' && (text.charAt(i) === '(' || text.charAt(i) === ':');
}

function codePointText(digits: string, radix: 10 | 16): string {
  const codePoint = digits.length > 8 ? Number.POSITIVE_INFINITY : Number.parseInt(digits, radix);
  return codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff) ? String.fromCodePoint(codePoint) : '\ufffd';
}

/** A run without a dot (or a dot-like), a colon, a slash or a backslash holds no link: every kind of link has one. */
const MAY_HOLD_LINK = /[.:/\\\u3002\uff0e\uff61]/;

function scanText(text: string, into: Link[], shared: TextScan): void {
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    if (MAY_HOLD_LINK.test(token)) linksInToken(token, into, shared);
  }
}

/** Every link in a text, in order: as written, then as a Markdown or HTML renderer reads it, where that differs. */
export function extractLinks(text: string): Link[] {
  const links: Link[] = [];
  const shared: TextScan = { pathsLeft: PATH_BUDGET, hosts: new Map(), domains: new Map() };
  scanText(text, links, shared);
  const rendered = markdownReading(text);
  if (rendered !== text) scanText(rendered, links, shared);
  return links;
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
