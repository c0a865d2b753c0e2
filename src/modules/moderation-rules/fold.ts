/**
 * Text folding for blacklist matching: NFKC, then a case fold per code point, so "CAFÉ", "café" and
 * "cafe\u0301" all read alike, and so do the compatibility look-alikes people use to dodge a word list:
 * fullwidth "ｂａｄ", mathematical "𝐛𝐚𝐝", circled "ⓑⓐⓓ", ligatures ("ﬁ" is "fi"). Folding works code
 * point by code point on both the rule and the text, so positions never need mapping back: word
 * boundaries are judged on the folded text itself (a folded letter is still a letter).
 *
 * Word boundaries are made explicit: a BOUNDARY code point sits wherever a word character (Unicode
 * letter, digit or combining mark) meets a non-word character, and at the ends of the text next to a
 * word character. An exact-word rule then is just a literal that carries BOUNDARY at its word-character
 * edges, so every rule kind is matched by one Aho-Corasick pass with no per-match checks.
 */

/** Outside Unicode's range, so no text can contain it. */
export const BOUNDARY = 0x110000;

const WORD = /^[\p{L}\p{N}\p{M}]$/u;
const SPACE = /^\s$/u;
/** Invisible characters that could split a word to dodge a rule: soft hyphen, zero-width, BOM. */
const IGNORABLE = new Set([0xad, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff]);

const enum Kind {
  Unknown = 0,
  Other = 1,
  Word = 2,
  Space = 3,
  Ignorable = 4,
}

const bmpKinds = new Uint8Array(0x10000);
const astralKinds = new Map<number, Kind>();
/** Folded form of BMP code points whose fold is one code point; -1 unknown, -2 several (see multiFolds). */
const bmpFolds = new Int32Array(0x10000).fill(-1);
const multiFolds = new Map<number, readonly number[]>();

/**
 * Every other code point Unicode says to render invisibly (bidi isolates and embeddings, variation
 * selectors, the combining grapheme joiner, tag characters, ...): `b\u2066ad` must read as `bad`.
 */
const DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

function classify(cp: number): Kind {
  if (IGNORABLE.has(cp)) return Kind.Ignorable;
  const char = String.fromCodePoint(cp);
  if (DEFAULT_IGNORABLE.test(char)) return Kind.Ignorable;
  if (WORD.test(char)) return Kind.Word;
  if (SPACE.test(char)) return Kind.Space;
  return Kind.Other;
}

function kindOf(cp: number): Kind {
  if (cp < 0x10000) {
    let kind = bmpKinds[cp] as Kind;
    if (kind === Kind.Unknown) {
      kind = classify(cp);
      bmpKinds[cp] = kind;
    }
    return kind;
  }
  let kind = astralKinds.get(cp);
  if (kind === undefined) {
    kind = classify(cp);
    astralKinds.set(cp, kind);
  }
  return kind;
}

export function isWordCodePoint(cp: number): boolean {
  return cp !== BOUNDARY && kindOf(cp) === Kind.Word;
}

/**
 * Upper then lower case, repeated until stable: close to Unicode full case folding, and the same for
 * every spelling of a letter ("ẞ" -> "ß" -> "ss", "ς" -> "σ", "ſ" -> "s").
 */
function computeFold(cp: number, depth = 0): number[] {
  const folded = String.fromCodePoint(cp).toUpperCase().toLowerCase();
  const points = Array.from(folded, (char) => char.codePointAt(0) as number);
  if ((points.length === 1 && points[0] === cp) || depth > 3) return points;
  return points.flatMap((point) => (point === cp ? [point] : computeFold(point, depth + 1)));
}

function foldOf(cp: number): number | readonly number[] {
  if (cp < 0x10000) {
    const cached = bmpFolds[cp] as number;
    if (cached >= 0) return cached;
    if (cached === -2) return multiFolds.get(cp) as readonly number[];
    const folded = computeFold(cp);
    if (folded.length === 1) {
      bmpFolds[cp] = folded[0] as number;
      return folded[0] as number;
    }
    bmpFolds[cp] = -2;
    multiFolds.set(cp, folded);
    return folded;
  }
  let folded = multiFolds.get(cp);
  if (folded === undefined) {
    folded = computeFold(cp);
    multiFolds.set(cp, folded);
  }
  return folded.length === 1 ? (folded[0] as number) : folded;
}

// ASCII, the common case, is a table lookup.
for (let cp = 0; cp < 128; cp++) {
  bmpKinds[cp] = classify(cp);
  bmpFolds[cp] = cp >= 65 && cp <= 90 ? cp + 32 : cp;
}

/** Folded code points of a text; `length` of `codes` is in use. */
export interface Folded {
  codes: Int32Array;
  length: number;
}

/**
 * The output buffer, reused by every call: a check runs once per message text, and allocating a
 * buffer and a closure per call showed in the message create profile. It grows for a longer text and
 * stays grown (a text is at most 20,000 characters, so at most ~160 KB).
 */
let out = new Int32Array(1024);
let outLength = 0;
let previousWord = false;

/** Appends one code point (and a BOUNDARY before it at a word edge), always leaving room for a final BOUNDARY. */
function emit(cp: number, boundaries: boolean): void {
  if (outLength + 3 > out.length) {
    const grown = new Int32Array(out.length * 2);
    grown.set(out);
    out = grown;
  }
  const word = kindOf(cp) === Kind.Word;
  if (boundaries && word !== previousWord) out[outLength++] = BOUNDARY;
  out[outLength++] = cp;
  previousWord = word;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** For ASCII: 1 word character, 2 white space, 0 anything else (ASCII has no ignorable characters). */
const asciiClass = new Uint8Array(128);
for (let cp = 0; cp < 128; cp++) asciiClass[cp] = bmpKinds[cp] === Kind.Word ? 1 : bmpKinds[cp] === Kind.Space ? 2 : 0;

/**
 * foldText for a text of ASCII only, the common case, in one tight loop: ASCII is unchanged by NFKC,
 * its case fold is A-Z to a-z, and it has no ignorable characters. Same output as the general path.
 */
function foldAscii(text: string, boundaries: boolean): Folded {
  const needed = text.length * 2 + 1;
  if (out.length < needed) out = new Int32Array(needed);
  let length = 0;
  let wordBefore = false;
  let spaceBefore = false;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    const kind = asciiClass[cp] as number;
    if (kind === 2) {
      if (spaceBefore) continue;
      spaceBefore = true;
      cp = 0x20;
    } else {
      spaceBefore = false;
      if (cp >= 65 && cp <= 90) cp += 32;
    }
    const word = kind === 1;
    if (boundaries && word !== wordBefore) out[length++] = BOUNDARY;
    out[length++] = cp;
    wordBefore = word;
  }
  if (boundaries && wordBefore) out[length++] = BOUNDARY;
  return { codes: out, length };
}

/**
 * Folds a text: NFKC, case fold, invisible characters dropped, each run of white space read as one
 * space, and (when `boundaries`) BOUNDARY at every word edge. The answer's `codes` is a shared buffer,
 * valid until the next call: read it (or copy it) before folding again.
 */
export function foldText(text: string, boundaries: boolean): Folded {
  if (ASCII_ONLY.test(text)) return foldAscii(text, boundaries);
  const source = text.normalize('NFKC');
  if (out.length < source.length * 2 + 2) out = new Int32Array(source.length * 2 + 2);
  outLength = 0;
  previousWord = false;
  let previousSpace = false;
  for (let i = 0; i < source.length; i++) {
    let cp = source.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < source.length) {
      const low = source.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    const kind = kindOf(cp);
    if (kind === Kind.Ignorable) continue;
    if (kind === Kind.Space) {
      if (!previousSpace) emit(0x20, boundaries);
      previousSpace = true;
      continue;
    }
    previousSpace = false;
    const folded = foldOf(cp);
    if (typeof folded === 'number') emit(folded, boundaries);
    else for (const point of folded) emit(point, boundaries);
  }
  if (boundaries && previousWord) out[outLength++] = BOUNDARY;
  return { codes: out, length: outLength };
}

/** The folded text as a string (no boundaries): the key that makes "Foo" and "FOO" one rule. */
export function foldKey(text: string): string {
  const { codes, length } = foldText(text.trim(), false);
  return String.fromCodePoint(...codes.subarray(0, length));
}

/**
 * A rule's code points for the automaton. An exact-word rule keeps BOUNDARY where its first or last
 * character is a word character; a rule that matches anywhere keeps only its inner boundaries, which
 * any occurrence in folded text also has.
 */
export function foldRule(word: string, exactWord: boolean): Int32Array {
  const { codes, length } = foldText(word.trim(), true);
  let start = 0;
  let end = length;
  if (!exactWord) {
    if (codes[start] === BOUNDARY) start++;
    if (end > start && codes[end - 1] === BOUNDARY) end--;
  }
  return codes.slice(start, end);
}
