import { type Automaton, buildAutomaton } from './automaton.js';
import { foldRule, foldText } from './fold.js';
import { hostWithinDnsLimits, parseWhitelistRule } from './link-hosts.js';
import { extractLinks, type Link } from './links.js';

/**
 * The enabled rules compiled into one checker: an Aho-Corasick automaton for every blacklisted word
 * and a host index for the whitelist, so checking a text costs the same with ten rules or ten
 * thousand. Rules are literals, never regular expressions ("a.b" does not match "axb").
 */
export interface BlacklistEntry {
  word: string;
  exactWord: boolean;
  /** The rule's id, named in reports of what a text breaks. */
  ruleId?: string;
}

export type Violation = { kind: 'blacklisted'; word: string; ruleId?: string } | { kind: 'notWhitelisted'; link: string };

export interface Matcher {
  /** The first rule the text breaks, or null. */
  check(text: string): Violation | null;
  /** Every rule the text breaks (blacklisted words in rule order, then links in text order): check() with the whole list. */
  violations(text: string): Violation[];
  readonly blacklistSize: number;
  readonly whitelistSize: number;
}

interface HostRules {
  /** A rule without a path allows the whole host. */
  anyPath: boolean;
  /** Path prefixes, "/a/b", each allowing itself and everything below it. */
  paths: Set<string>;
  /** The most slashes in one of `paths`: deeper prefixes of a link's path cannot match. */
  deepest: number;
}

function compileBlacklist(entries: readonly BlacklistEntry[]): { automaton: Automaton; words: BlacklistEntry[] } {
  const patterns: Int32Array[] = [];
  const words: BlacklistEntry[] = [];
  for (const entry of entries) {
    const pattern = foldRule(entry.word, entry.exactWord);
    if (pattern.length === 0) continue;
    patterns.push(pattern);
    words.push(entry);
  }
  return { automaton: buildAutomaton(patterns), words };
}

const blacklisted = (entry: BlacklistEntry): Violation =>
  entry.ruleId === undefined ? { kind: 'blacklisted', word: entry.word } : { kind: 'blacklisted', word: entry.word, ruleId: entry.ruleId };

function compileWhitelist(urls: readonly string[]): Map<string, HostRules> {
  const hosts = new Map<string, HostRules>();
  for (const url of urls) {
    const rule = parseWhitelistRule(url);
    if (!rule) continue;
    let entry = hosts.get(rule.host);
    if (!entry) {
      entry = { anyPath: false, paths: new Set(), deepest: 0 };
      hosts.set(rule.host, entry);
    }
    if (rule.path === '') entry.anyPath = true;
    else {
      entry.paths.add(rule.path);
      entry.deepest = Math.max(entry.deepest, slashesIn(rule.path));
    }
  }
  return hosts;
}

function slashesIn(path: string): number {
  let count = 0;
  for (let index = path.indexOf('/'); index !== -1; index = path.indexOf('/', index + 1)) count += 1;
  return count;
}

/**
 * "/a/b/c" -> "/a", "/a/b", "/a/b/c": the rule paths that would allow it, but only those with at most
 * `deepest` slashes, as deep as the host's deepest rule path: every prefix of a path 20,000 characters
 * long would be quadratic work for nothing.
 */
function prefixesOf(path: string, deepest: number): string[] {
  const prefixes: string[] = [];
  for (let slash = path.indexOf('/', 1); slash !== -1 && prefixes.length < deepest; slash = path.indexOf('/', slash + 1)) prefixes.push(path.slice(0, slash));
  if (path !== '' && slashesIn(path) <= deepest) prefixes.push(path);
  return prefixes;
}

/** Allowed when a rule names the host or a parent domain of it, with no path or a prefix of the link's path. */
function isAllowed(hosts: Map<string, HostRules>, link: Link): boolean {
  // No rule names a host beyond DNS's limits (rules are validated), so no such link is allowed; checked
  // first, because the walk below over a 100,000-character host of 50,000 labels would be quadratic.
  if (!hostWithinDnsLimits(link.host)) return false;
  let host = link.host;
  for (;;) {
    const entry = hosts.get(host);
    if (entry) {
      if (entry.anyPath) return true;
      for (const prefix of prefixesOf(link.path, entry.deepest)) if (entry.paths.has(prefix)) return true;
    }
    const dot = host.indexOf('.');
    if (dot === -1 || host.startsWith('[')) return false;
    host = host.slice(dot + 1);
  }
}

export function compileMatcher(rules: { blacklist: readonly BlacklistEntry[]; whitelist: readonly string[] }): Matcher {
  const { automaton, words } = compileBlacklist(rules.blacklist);
  const hosts = compileWhitelist(rules.whitelist);
  const checkBlacklist = words.length > 0;
  const checkLinks = hosts.size > 0;
  return {
    blacklistSize: words.length,
    whitelistSize: hosts.size,
    check(text) {
      if (checkBlacklist) {
        const { codes, length } = foldText(text, true);
        const hit = automaton.firstMatch(codes, length);
        if (hit !== -1) return blacklisted(words[hit] as BlacklistEntry);
      }
      if (checkLinks) {
        for (const link of extractLinks(text)) if (!isAllowed(hosts, link)) return { kind: 'notWhitelisted', link: link.text };
      }
      return null;
    },
    violations(text) {
      const found: Violation[] = [];
      if (checkBlacklist) {
        const { codes, length } = foldText(text, true);
        for (const hit of automaton.allMatches(codes, length)) found.push(blacklisted(words[hit] as BlacklistEntry));
      }
      if (checkLinks) {
        for (const link of extractLinks(text)) if (!isAllowed(hosts, link)) found.push({ kind: 'notWhitelisted', link: link.text });
      }
      return found;
    },
  };
}

export const EMPTY_MATCHER: Matcher = compileMatcher({ blacklist: [], whitelist: [] });
