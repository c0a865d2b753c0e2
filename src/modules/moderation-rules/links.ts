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

import { canonicalHost, isHostChar, junkInTopLabel, looksLikeDomain, mapDotLikes, mapHost, normalizePath } from './link-hosts.js';
import { markdownReading } from './link-markup.js';
import { isHardStop, LinkEnds } from './link-stops.js';

export { parseWhitelistRule } from './link-hosts.js';

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
  const scan: TokenScan = {
    raw,
    token: mapDotLikes(raw),
    ends: null,
    stops: null,
    readingsLeft: MAX_READINGS_PER_TOKEN,
    queryFrom: 0,
    queryAt: -1,
    atFrom: 0,
    atAt: -1,
    into,
    budget: MAX_LINKS_PER_TOKEN,
    text,
  };
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
