/**
 * Where a link ends: at a renderer's hard stop (a quote, a bracket, non-ASCII punctuation), or where
 * the punctuation framing it in prose begins.
 */

/** Punctuation that ends a sentence or closes a bracket around a link, trimmed off a link's end. */
const TRAILING_PUNCTUATION = '.,;:!?)]}>*_~\'"';

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

/** Whether a renderer may end a link at `text[index]`. */
export function isHardStop(text: string, index: number): boolean {
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

/**
 * Where a link ends once the punctuation framing it in prose is left out: the token's trailing run of
 * punctuation goes, except a `)` that closes one opened inside the link (en.wikipedia.org/wiki/Foo_(bar)).
 * Counted once per token, so each link's end is found without rescanning the token.
 */
export class LinkEnds {
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
