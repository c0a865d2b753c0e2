import { describe, expect, it } from 'vitest';
import { extractLinks, parseWhitelistRule } from '../../../src/modules/moderation-rules/links.js';
import { type BlacklistEntry, compileMatcher } from '../../../src/modules/moderation-rules/matcher.js';

/** Pure unit tests of the compiled matcher: no database, no HTTP. */
const blacklist = (...entries: Array<[string, boolean]>) =>
  compileMatcher({ blacklist: entries.map(([word, exactWord]) => ({ word, exactWord })), whitelist: [] });
const whitelist = (...urls: string[]) => compileMatcher({ blacklist: [], whitelist: urls });
const blocked = (matcher: ReturnType<typeof compileMatcher>, text: string) => matcher.check(text) !== null;

describe('blacklist matcher', () => {
  it('matches any occurrence, case-insensitively, unless the rule is exact-word', () => {
    const anywhere = blacklist(['bad', false]);
    expect(blocked(anywhere, 'this is BAD!')).toBe(true);
    expect(blocked(anywhere, 'a badge')).toBe(true);
    expect(blocked(anywhere, 'b a d')).toBe(false);
    const exact = blacklist(['bad', true]);
    expect(blocked(exact, 'Bad')).toBe(true);
    expect(blocked(exact, 'so bad.')).toBe(true);
    expect(blocked(exact, '(bad)')).toBe(true);
    expect(blocked(exact, 'a badge')).toBe(false);
    expect(blocked(exact, 'notbad')).toBe(false);
    expect(blocked(exact, 'bad2')).toBe(false);
  });

  it('"lava" is not blocked by the exact word "va", but is by "va" anywhere', () => {
    expect(blocked(blacklist(['va', true]), 'lava')).toBe(false);
    expect(blocked(blacklist(['va', true]), 'lava va')).toBe(true);
    expect(blocked(blacklist(['va', false]), 'lava')).toBe(true);
  });

  it('takes rules literally: "a.b" does not match "axb", and regex syntax is just text', () => {
    const matcher = blacklist(['a.b', false], ['(.*)', false], ['[a-z]+', true], ['x+y', false], ['\\', false]);
    expect(blocked(matcher, 'axb')).toBe(false);
    expect(blocked(matcher, 'xa.bx')).toBe(true);
    expect(blocked(matcher, 'anything at all')).toBe(false);
    expect(blocked(matcher, 'literally (.*) here')).toBe(true);
    expect(blocked(matcher, 'abc')).toBe(false);
    expect(blocked(matcher, 'see [a-z]+ ok')).toBe(true);
    expect(blocked(matcher, 'xxy')).toBe(false);
    expect(blocked(matcher, 'x+y')).toBe(true);
    expect(blocked(matcher, 'C:\\temp')).toBe(true);
  });

  it('works on Cyrillic, with case and word boundaries', () => {
    const exact = blacklist(['Слово', true]);
    expect(blocked(exact, 'Это СЛОВО!')).toBe(true);
    expect(blocked(exact, 'слово')).toBe(true);
    expect(blocked(exact, 'словоформа')).toBe(false);
    expect(blocked(exact, 'предисловие')).toBe(false);
    expect(blocked(blacklist(['слово', false]), 'словоформа')).toBe(true);
    expect(blocked(blacklist(['ёж', true]), 'ЁЖ')).toBe(true);
  });

  it('works on Greek, whatever the sigma', () => {
    expect(blocked(blacklist(['οδός', true]), 'ΟΔΌΣ')).toBe(true);
    expect(blocked(blacklist(['ΟΔΌΣ', true]), 'οδός')).toBe(true);
    expect(blocked(blacklist(['σοφός', true]), 'Ο ΣΟΦΌΣ.')).toBe(true);
  });

  it('works on Thai, where words are not separated by spaces', () => {
    const anywhere = blacklist(['สวัสดี', false]);
    expect(blocked(anywhere, 'สวัสดีครับ')).toBe(true);
    expect(blocked(anywhere, 'ครับ')).toBe(false);
    // An exact Thai word only stands alone next to spaces, punctuation or the ends of the text.
    const exact = blacklist(['สวัสดี', true]);
    expect(blocked(exact, 'สวัสดีครับ')).toBe(false);
    expect(blocked(exact, 'สวัสดี ครับ')).toBe(true);
    expect(blocked(exact, '(สวัสดี)')).toBe(true);
    // Combining vowel marks belong to the word: "กิน" (eat) is not "ก" followed by something else.
    expect(blocked(blacklist(['ก', true]), 'กิน')).toBe(false);
    expect(blocked(blacklist(['กิน', true]), 'กิน ข้าว')).toBe(true);
    expect(blocked(blacklist(['กิน', true]), 'กินข้าว')).toBe(false);
  });

  it('works on accented Latin in NFC and NFD, and accents matter', () => {
    const nfcRule = blacklist(['café', true]);
    const nfdRule = blacklist(['cafe\u0301', true]);
    for (const matcher of [nfcRule, nfdRule]) {
      expect(blocked(matcher, 'un café')).toBe(true);
      expect(blocked(matcher, 'un cafe\u0301!')).toBe(true);
      expect(blocked(matcher, 'UN CAFÉ')).toBe(true);
      expect(blocked(matcher, 'CAFE\u0301')).toBe(true);
      expect(blocked(matcher, 'cafés')).toBe(false);
      expect(blocked(matcher, 'cafe\u0301s')).toBe(false);
      expect(blocked(matcher, 'un cafe')).toBe(false);
    }
    // The combining mark is part of the word: the exact word "cafe" is not in decomposed "café".
    expect(blocked(blacklist(['cafe', true]), 'cafe\u0301')).toBe(false);
    expect(blocked(blacklist(['cafe', false]), 'cafe\u0301')).toBe(false);
    expect(blocked(blacklist(['Ångström', true]), 'ÅNGSTRÖM units')).toBe(true);
    expect(blocked(blacklist(['straße', true]), 'STRASSE')).toBe(true);
  });

  it('reads white space runs as one space and ignores invisible characters', () => {
    const matcher = blacklist(['bad word', true], ['evil', false]);
    expect(blocked(matcher, 'a bad \n\t word')).toBe(true);
    expect(blocked(matcher, 'e\u200Bv\u00ADil')).toBe(true);
    // Everything Unicode renders invisibly: bidi isolate and embedding, variation selector, combining
    // grapheme joiner, Mongolian free variation selector, a tag character.
    for (const hidden of ['\u2066', '\u202A', '\uFE0F', '\u034F', '\u180B', '\u{E0041}']) {
      expect(blocked(matcher, `e${hidden}vil`), JSON.stringify(hidden)).toBe(true);
      expect(blocked(matcher, `a bad${hidden} word`), JSON.stringify(hidden)).toBe(true);
    }
    expect(blocked(matcher, 'bad words')).toBe(false);
  });

  it('reads compatibility look-alikes as the letters they stand for', () => {
    const matcher = blacklist(['bad', true], ['evil', false]);
    for (const text of [
      'so \uff42\uff41\uff44',
      'so \u{1d41b}\u{1d41a}\u{1d41d}!',
      '\u24d1\u24d0\u24d3 day',
      '\uff25\uff36\uff29\uff2c plan',
      '\u{1d5be}\u{1d5cf}\u{1d5c2}\u{1d5c5}',
    ]) {
      expect({ text, blocked: blocked(matcher, text) }).toEqual({ text, blocked: true });
    }
    // A rule written with a ligature is the letters; the word edge stays where the letters end.
    expect(blocked(blacklist(['\ufb01ne', true]), 'all fine')).toBe(true);
    expect(blocked(blacklist(['fine', true]), 'all \ufb01ne')).toBe(true);
    expect(blocked(matcher, '\uff42\uff41\uff44ge')).toBe(false);
  });

  it('judges exact-word edges only where the rule has a letter or digit', () => {
    const matcher = blacklist(['#tag', true]);
    expect(blocked(matcher, 'a #tag b')).toBe(true);
    expect(blocked(matcher, 'x#tag')).toBe(true);
    expect(blocked(matcher, '#tags')).toBe(false);
  });

  it('finds one word among 10,000 and nothing when none is there', () => {
    const entries: BlacklistEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      word: `w${i.toString(36)}x${(i * 7919).toString(36)}`,
      exactWord: i % 2 === 0,
    }));
    entries.push({ word: 'needle', exactWord: true });
    const matcher = compileMatcher({ blacklist: entries, whitelist: [] });
    expect(matcher.blacklistSize).toBe(10_001);
    expect(matcher.check('there is a NEEDLE in this haystack')).toEqual({ kind: 'blacklisted', word: 'needle' });
    expect(matcher.check('there is a needles in this haystack')).toBeNull();
    expect(matcher.check(`prefix ${entries[4321]?.word} suffix`)).toEqual({ kind: 'blacklisted', word: entries[4321]?.word });
  });

  it('stays linear on adversarial input: 100,000 "a" against 10,000 rules', () => {
    const entries: BlacklistEntry[] = [];
    for (let k = 1; k <= 100; k++) {
      entries.push({ word: `${'a'.repeat(k)}c`, exactWord: false });
      entries.push({ word: 'a'.repeat(k), exactWord: true });
    }
    for (let i = entries.length; i < 10_000; i++) entries.push({ word: `${'a'.repeat(i % 97)}b${i}`, exactWord: i % 3 === 0 });
    const matcher = compileMatcher({ blacklist: entries, whitelist: [] });
    const text = 'a'.repeat(100_000);
    expect(matcher.check(text)).toBeNull();
    expect(matcher.check(`${text}c`)?.kind).toBe('blacklisted');
    expect(matcher.check(`${text} ${'a'.repeat(37)}`)).toEqual({ kind: 'blacklisted', word: 'a'.repeat(37) });
  });
});

describe('links and the whitelist matcher', () => {
  it('judges a link with a very deep path by the rule paths of its host, at any depth', () => {
    const matcher = whitelist('good.com/docs/api', 'good.com/a/b/c/d/e', 'other.org');
    const deep = '/x'.repeat(10_000);
    expect(blocked(matcher, `see https://good.com/docs/api${deep}`)).toBe(false);
    expect(blocked(matcher, `see https://good.com/a/b/c/d/e${deep}`)).toBe(false);
    expect(blocked(matcher, `see https://good.com/docs${deep}`)).toBe(true);
    expect(blocked(matcher, `see https://good.com/a/b/c/d${deep}`)).toBe(true);
    expect(blocked(matcher, `see https://other.org${deep}`)).toBe(false);
    expect(blocked(matcher, 'see https://good.com/docs/api')).toBe(false);
    expect(blocked(matcher, 'see https://good.com/docs/apis')).toBe(true);
  });

  it('lets every link through when there are no whitelist rules', () => {
    expect(whitelist().check('see https://evil.com and evil.org')).toBeNull();
  });

  it('allows the host and its subdomains, in any link form', () => {
    const matcher = whitelist('example.com');
    for (const text of [
      'http://example.com',
      'https://example.com/',
      'HTTPS://EXAMPLE.COM/Path',
      'see example.com',
      'see Example.COM/a/b?c=d#e',
      'sub.example.com',
      'https://a.b.example.com:8443/x',
      'example.com:8080/x',
      'Visit example.com.',
      '(see https://example.com/docs).',
      '<https://example.com/x>',
      '[docs](https://example.com/docs)',
      'https://user:pw@example.com/',
      'trailing dot https://example.com./',
      'no links at all',
    ]) {
      expect({ text, result: matcher.check(text) }).toEqual({ text, result: null });
    }
  });

  it('refuses any other host, including the usual disguises', () => {
    const matcher = whitelist('example.com');
    for (const text of [
      'evil.com',
      'https://evil.com',
      'http://EVIL.COM/example.com',
      'example.com.evil.com',
      'notexample.com',
      'https://example.com@evil.com/',
      'https://evil.com\\@example.com',
      'https:///evil.com',
      'https://evil.com?example.com',
      'ftp://evil.com',
      'http://localhost:3000',
      'http://10.0.0.1/',
      'evil\u3002com',
      'ｅｖｉｌ．ｃｏｍ',
      'good example.com and bad evil.org',
      'a.com,example.com',
      'пример.рф',
    ]) {
      expect({ text, kind: matcher.check(text)?.kind }).toEqual({ text, kind: 'notWhitelisted' });
    }
  });

  it('judges a link by every reading a browser or a renderer can give it', () => {
    const matcher = whitelist('example.com', 'docs.example.org/guide');
    for (const text of [
      // A fullwidth look-alike does not end the authority for a browser: the host follows the last @.
      'http://example.com\uff0f@evil.com',
      'http://example.com\uff1f@evil.com',
      'https://example.com\u3002x@evil.com',
      // Quotes do not end a URL for a browser, so they must not split the text before the scan.
      "[x](https://example.com'@evil.com)",
      'https://example.com"@evil.com',
      'https://example.com`@evil.com',
      // A renderer may end the link at the stop instead: that reading goes to evil.com.
      "https://evil.com'@example.com",
      'https://evil.com\u300d@example.com',
      'https://evil.com\u{1f600}@example.com',
      '[x](https://evil.com)@example.com',
      // A second link after the first one ends for a renderer.
      '[x](https://example.com)https://evil.com',
      '[a](https://example.com/)[b](https://evil.com)',
      '"https://example.com"https://evil.com',
      '<https://example.com><https://evil.com>',
      "https://example.com/x'evil.com",
      'example.com/a)evil.com',
      // The path a browser resolves, beyond where a renderer stops.
      "[x](https://docs.example.org/guide'/../../admin)",
      // Hosts in their compatibility form.
      'https://\uff45\uff56\uff49\uff4c\uff0e\uff43\uff4f\uff4d/',
      'https://EVİL.com',
      // Over a hundred links in one whitespace-free run is refused whole.
      'example.com,'.repeat(101),
      // As a Markdown renderer reads a destination: escapes taken, references decoded, spaces in <...> dropped.
      '[x](https://example.com\\@evil.com)',
      '[x](<https://example.com @evil.com>)',
      '[x][1]\n\n[1]: <https://example.com @evil.com>',
      '<a href="https://example.com\n@evil.com">x</a>',
      '[x](//evil&#46;com)',
      '[x](https&#58;//evil&#46;com)',
      '[x](http:evil&#x2E;com)',
      '[x](https://example.com&commat;evil.com)',
      // Links whatever their top-level label: protocol-relative, a scheme without slashes, www.
      '[x](//evil.zip)',
      'see //evil.zip',
      '<http:evil.zip>',
      'www.evil.zip',
      // IDNA drops a soft hyphen, so the host is www.example.com.evil.com.
      'www.example.com\u00ad.evil.c\u00adom',
      'https://ev%69l.com',
      // Punctuation before a stop is trimmed as prose ...
      '**https://evil.com**\u2014great',
      'https://evil.com!\u2014great',
      'https://evil.com,\u300d',
      'https://evil.com*\u{1f600}',
      // ... links without a scheme have user parts too ...
      'www.example.com@evil.com',
      '[x](//example.com@evil.com)',
      '<http:example.com@evil.zip>',
      '[x](//@evil.zip)',
      // ... special schemes take any slashes, and relative links two of either kind ...
      '[x](http:/evil.zip)',
      '<http:/evil.zip>',
      '<a href="http:\\evil.zip">x</a>',
      '<a href="/\\evil.zip">x</a>',
      '<a href="\\\\evil.zip">x</a>',
      // ... references decode to white space the URL drops, and HTML decodes them without ";" ...
      '[x](https://example.com&#32;@evil.com)',
      '<a href="https://example.com&#10;@evil.com">x</a>',
      '[x](https://docs.example.org/guide/.&#10;./admin)',
      '<a href="https://evil&#46com">x</a>',
      '<a href="https://example.com&#64evil.com">x</a>',
      '<a href="https://evil&#00000046;com">x</a>',
      // ... symbols IDNA turns into letters are no stops ...
      '<a href="https://\u24baVIL.\u24b8OM">x</a>',
      '[x](https://\u24d4vil.\u24e9ip)',
      // ... destinations after spaces or a line end, attributes after "/" ...
      '[x]( <https://example.com @evil.com>)',
      '[x](\n<https://example.com @evil.com>)',
      '[1]:          <https://example.com @evil.com>',
      '<div>\n<a/href="https://example.com @evil.com">x</a>\n</div>',
      // ... and a path ending in ".." where a renderer ends it.
      '[x](https://docs.example.org/guide/..)',
      '<https://docs.example.org/guide/..>',
      '<a href="https://docs.example.org/guide/..">x</a>',
    ]) {
      expect({ text, kind: matcher.check(text)?.kind }).toEqual({ text, kind: 'notWhitelisted' });
    }
    for (const text of [
      'https://example.com/https://evil.com',
      'https://example.com/redirect?to=https://evil.com',
      'https://www.example.com/search?q=evil.com&page=2',
      "it's at https://example.com's front page",
      "'https://example.com'",
      '"see https://example.com/a"',
      'https://example.com/wiki/Foo_(bar)',
      '[guide](https://docs.example.org/guide/intro)',
      'https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d/x',
      'example.com,'.repeat(99),
      // Prose right after a link is no part of its host: no top-level domain holds punctuation or a symbol.
      'see https://example.com\u{1f600}',
      '\u770b\u8fd9\u4e2ahttps://example.com\uff0c\u5f88\u597d',
      'https://example.com\uff01',
      '\u201chttps://example.com\u201d',
      '\u00abhttps://example.com\u00bb',
      'https://example.com\u2014nice',
      'https://example.com\u2019s page',
      // The host as the URL parser reads it: percent-decoded.
      'https://ex%61mple.com/x',
      '[x](<https://docs.example.org/guide/a b>)',
      '**https://example.com**\u2014great',
      '\u201chttps://example.com/path\u201d',
      '\u898b\u3066\u2192https://example.com\u2190',
      'path C:\\Users\\me\\file.txt and https://example.com',
      'x = a<b && c>d; see https://example.com',
      'https://\u4f8b\u5b50.example.com',
      '<a href="https://docs.example.org/guide/intro">guide</a>',
    ]) {
      expect({ text, result: matcher.check(text) }).toEqual({ text, result: null });
    }
  });

  it('compares hosts in the form browsers connect to: IDNA, IPv4 and IPv6 literals', () => {
    const sharp = whitelist('straße.de');
    expect(sharp.check('https://straße.de/a')).toBeNull();
    // UTS 46 maps the capital sharp s to "ss": a browser goes to strasse.de.
    expect(sharp.check('https://STRAẞE.de')?.kind).toBe('notWhitelisted');
    const literals = whitelist('[::1]', '127.0.0.1');
    expect(literals.check('http://[::1]:8080/x and http://127.0.0.1/')).toBeNull();
    expect(literals.check('http://0x7f.1/')).toBeNull();
    expect(literals.check('http://[::2]/')?.kind).toBe('notWhitelisted');
    expect(literals.check('http://0x7f.2/')?.kind).toBe('notWhitelisted');
    expect(parseWhitelistRule('пример.рф')).toEqual({ host: 'xn--e1afmkfd.xn--p1ai', path: '' });
  });

  it('applies a rule path as a prefix of whole segments, after resolving dot segments', () => {
    const matcher = whitelist('https://Docs.Example.org/guide/');
    for (const text of [
      'docs.example.org/guide',
      'https://docs.example.org/guide/',
      'https://docs.example.org/guide/intro?x=1',
      'docs.example.org/guide/./a',
    ]) {
      expect({ text, result: matcher.check(text) }).toEqual({ text, result: null });
    }
    for (const text of [
      'docs.example.org',
      'https://docs.example.org/',
      'docs.example.org/guidebook',
      'docs.example.org/Guide',
      'https://docs.example.org/guide/../admin',
      'https://docs.example.org/guide/%2E%2E/admin',
      'https://docs.example.org\\guide\\..\\admin',
    ]) {
      expect({ text, kind: matcher.check(text)?.kind }).toEqual({ text, kind: 'notWhitelisted' });
    }
  });

  it('reads Unicode domains', () => {
    const matcher = whitelist('пример.рф');
    expect(matcher.check('https://ПРИМЕР.РФ/путь')).toBeNull();
    expect(matcher.check('www.пример.рф')).toBeNull();
    expect(matcher.check('другой.рф')?.kind).toBe('notWhitelisted');
  });

  it('does not take ordinary words with dots, numbers or e-mail addresses for links', () => {
    expect(extractLinks('Node.js v1.2.3, e.g. 3.14 or i.e. file.json; mail john@mail.com ...')).toEqual([]);
  });

  it('extracts links with host and normalized path', () => {
    expect(extractLinks('go to HTTPS://Example.com/a/./b/../c/ now, or www.test.org.')).toEqual([
      { text: 'HTTPS://Example.com/a/./b/../c/', host: 'example.com', path: '/a/c' },
      { text: 'www.test.org', host: 'www.test.org', path: '' },
    ]);
  });

  it('parses whitelist rules and refuses what names no host', () => {
    expect(parseWhitelistRule('https://Example.com:8080/Docs/')).toEqual({ host: 'example.com', path: '/Docs' });
    expect(parseWhitelistRule('*.example.com')).toEqual({ host: 'example.com', path: '' });
    expect(parseWhitelistRule('localhost')).toEqual({ host: 'localhost', path: '' });
    expect(parseWhitelistRule('10.0.0.1')).toEqual({ host: '10.0.0.1', path: '' });
    expect(parseWhitelistRule('[::1]')).toEqual({ host: '[::1]', path: '' });
    for (const bad of ['', 'not a url', 'http://', '1.2', 'exa mple.com', 'a..b.com', 'ex!ample.com'])
      expect({ bad, rule: parseWhitelistRule(bad) }).toEqual({ bad, rule: null });
  });

  it('takes a host-like run beyond DNS lengths for a link that no rule allows', () => {
    const matcher = whitelist('example.com');
    const longLabel = 'x'.repeat(64);
    const longHost = `${'ab.'.repeat(90)}example.com`;
    for (const text of [`${longLabel}.evil.com`, `${longLabel}.example.com`, longHost, `https://${longHost}/`, `see ${'a.'.repeat(200)}com/path`]) {
      expect({ text, kind: matcher.check(text)?.kind }).toEqual({ text, kind: 'notWhitelisted' });
    }
    expect(matcher.check(`${'x'.repeat(63)}.example.com`)).toBeNull();
    expect(extractLinks(`${longLabel}.evil.com`)).toEqual([{ text: `${longLabel}.evil.com`, host: `${longLabel}.evil.com`, path: '' }]);
    // Rules still name real hosts only.
    expect(parseWhitelistRule(`${longLabel}.example.com`)).toBeNull();
  });

  it('stays linear on adversarial input with 10,000 rules', () => {
    const urls = Array.from({ length: 10_000 }, (_, i) => `site${i}.example.com/p${i}`);
    const matcher = whitelist(...urls);
    expect(matcher.check(`${'a.'.repeat(50_000)}com`)?.kind).toBe('notWhitelisted');
    expect(matcher.check(`(${')'.repeat(50_000)}`)).toBeNull();
    expect(matcher.check(`https://site77.example.com/p77/${'x/'.repeat(20_000)}`)).toBeNull();
    expect(matcher.check('x'.repeat(100_000))).toBeNull();
    // Many links, stops and @ in one run: each reading is bounded, so the whole run stays linear.
    expect(matcher.check(`https://a'`.repeat(20_000))?.kind).toBe('notWhitelisted');
    expect(matcher.check(`x://site1.example.com/p1/'${"'@".repeat(30_000)}`)).toBeNull();
    expect(matcher.check(`x://a.com)`.repeat(20_000))?.kind).toBe('notWhitelisted');
    expect(matcher.check(`https://${"a'".repeat(30_000)}@site1.example.com`)?.kind).toBe('notWhitelisted');
    expect(matcher.check(`a.com/'`.repeat(20_000))?.kind).toBe('notWhitelisted');
    // 98 allowed links sharing one 30,000-character path: past the path budget a path is not resolved.
    expect(matcher.check(`${"https://site1.example.com/p1/'".repeat(98)}${'/x'.repeat(15_000)}`)?.kind).toBe('notWhitelisted');
    expect(matcher.check(`https://site1.example.com/p1/${'/x'.repeat(15_000)}`)).toBeNull();
    expect(matcher.check(`${'&#46;'.repeat(8_000)} ${'\\@'.repeat(8_000)} ${'[x](<'.repeat(8_000)}`)).toBeNull();
    // Long labels are refused unparsed (IDNA's punycode is quadratic); repeated hosts are parsed once.
    const cjk = Array.from({ length: 10_000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
    expect(matcher.check(`${cjk}.com`)?.kind).toBe('notWhitelisted');
    expect(matcher.check(`http://${".\u00e4'".repeat(13_330)}`)?.kind).toBe('notWhitelisted');
    expect(matcher.check(`${'\u00e4.de '.repeat(7_990)} \\.`)?.kind).toBe('notWhitelisted');
  });
});
