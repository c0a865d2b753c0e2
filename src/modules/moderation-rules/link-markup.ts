/**
 * Link destinations as a Markdown or HTML renderer decodes them: escapes and character references
 * taken, white space inside a destination dropped. A link hidden by an encoding is judged as decoded.
 */

/** HTML5's names for the ASCII punctuation a URL is made of (and a few invisible ones); `&#...;` covers the rest. */
const NAMED_REFERENCES: Record<string, string> = {
  amp: '&',
  AMP: '&',
  lt: '<',
  LT: '<',
  gt: '>',
  GT: '>',
  quot: '"',
  QUOT: '"',
  apos: "'",
  period: '.',
  colon: ':',
  sol: '/',
  bsol: '\\',
  commat: '@',
  quest: '?',
  num: '#',
  excl: '!',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  semi: ';',
  equals: '=',
  lsqb: '[',
  lbrack: '[',
  rsqb: ']',
  rbrack: ']',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  rcub: '}',
  rbrace: '}',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  Hat: '^',
  shy: '\u00ad',
  nbsp: '\u00a0',
  Tab: '\t',
  NewLine: '\n',
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
export function markdownReading(text: string): string {
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
