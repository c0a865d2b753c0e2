import { describe, expect, it } from 'vitest';
import { buildAutomaton } from '../../../src/modules/moderation-rules/automaton.js';
import { BOUNDARY, foldText } from '../../../src/modules/moderation-rules/fold.js';

/**
 * The automaton against a naive search, on random rule sets and texts: same answer on whether a
 * pattern occurs, and the pattern it names really ends at the earliest position where any does.
 * The alphabet mixes Latin, Cyrillic, Thai and astral code points, and rule sets run from a few short
 * patterns to thousands of long ones, so both the complete shallow rows and the deep sparse rows
 * (and the walk between them along failure links) are exercised.
 */
const ALPHABET = [...'abcxyzабвกขค', '😀', '𝒜'].map((char) => char.codePointAt(0) as number);

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

function randomCodes(next: () => number, length: number, alphabetSize: number): Int32Array {
  return Int32Array.from({ length }, () => ALPHABET[Math.floor(next() * alphabetSize)] as number);
}

/** The earliest end index (exclusive) at which some pattern occurs, or -1. */
function earliestEnd(patterns: Int32Array[], text: Int32Array): number {
  for (let end = 1; end <= text.length; end++) {
    for (const pattern of patterns) {
      if (pattern.length === 0 || pattern.length > end) continue;
      if (pattern.every((cp, i) => text[end - pattern.length + i] === cp)) return end;
    }
  }
  return -1;
}

const endsAt = (pattern: Int32Array, text: Int32Array, end: number) => pattern.length <= end && pattern.every((cp, i) => text[end - pattern.length + i] === cp);

describe('Aho-Corasick automaton', () => {
  it('agrees with a naive search on random rule sets and texts', () => {
    const next = random(20261123);
    let matched = 0;
    for (let round = 0; round < 300; round++) {
      const alphabetSize = 2 + Math.floor(next() * (ALPHABET.length - 1));
      const patternCount = round % 10 === 0 ? 2000 : 1 + Math.floor(next() * 40);
      const patterns = Array.from({ length: patternCount }, () => randomCodes(next, 1 + Math.floor(next() * 7), alphabetSize));
      const automaton = buildAutomaton(patterns);
      for (let probe = 0; probe < 10; probe++) {
        const text = randomCodes(next, Math.floor(next() * 60), Math.min(ALPHABET.length, alphabetSize + 1));
        const end = earliestEnd(patterns, text);
        const hit = automaton.firstMatch(text, text.length);
        if (end === -1) {
          expect(hit).toBe(-1);
          continue;
        }
        matched += 1;
        expect(hit).toBeGreaterThanOrEqual(0);
        expect(endsAt(patterns[hit] as Int32Array, text, end)).toBe(true);
      }
    }
    // Both outcomes were exercised, not only one.
    expect(matched).toBeGreaterThan(300);
    expect(matched).toBeLessThan(2900);
  });

  it('reads only the first `length` code points, and finds nothing without patterns', () => {
    const automaton = buildAutomaton([Int32Array.from([1, 2, 3])]);
    const text = Int32Array.from([9, 1, 2, 3]);
    expect(automaton.firstMatch(text, 3)).toBe(-1);
    expect(automaton.firstMatch(text, 4)).toBe(0);
    expect(buildAutomaton([]).firstMatch(text, 4)).toBe(-1);
  });
});

describe('text folding', () => {
  const folded = (text: string, boundaries: boolean) => {
    const { codes, length } = foldText(text, boundaries);
    return Array.from(codes.subarray(0, length));
  };

  it('folds ASCII text on its fast path exactly as the general path does', () => {
    const next = random(7);
    const pieces = ['Hello', 'WORLD', ' ', '  ', '\t', '\n', 'a.b', 'x_y', '42', 'https://Example.COM/Path', '-', '!', ''];
    for (let round = 0; round < 500; round++) {
      const text = Array.from({ length: Math.floor(next() * 12) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      // A zero-width space is dropped by folding but sends the text down the general (non-ASCII) path.
      for (const boundaries of [true, false]) expect(folded(text, boundaries)).toEqual(folded(`${text}\u200b`, boundaries));
    }
    expect(folded('Hi  THERE', true)).toEqual([
      BOUNDARY,
      ...'hi'.split('').map((c) => c.charCodeAt(0)),
      BOUNDARY,
      32,
      BOUNDARY,
      ...[...'there'].map((c) => c.charCodeAt(0)),
      BOUNDARY,
    ]);
  });
});
