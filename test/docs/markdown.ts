/**
 * The runnable parts of a guide, read from its markdown. A guide marks what the test runs and checks:
 *
 * - ```sh {test}          a block run in bash; it must exit 0
 * - ```sh {test retry}    the same, run again (up to 20 s) until its check passes: for what arrives a
 *                         moment later (a webhook, a tray record, a stream frame)
 * - ```sh {test server}   its lines run like a {test} block, except the last, which starts a server and
 *                         is left running (in the background) until the guide ends
 * - ```json {expect}      after a runnable block: what it prints, as one or more JSON values
 * - ```text {expect}      after a runnable block: lines it prints, in order
 * - <!-- expect json: ... -->, <!-- expect text: ... -->   the same, not shown to the reader
 * - <!-- test: needs postgres redis -->   the guide runs only when TEST_DATABASE_URL and TEST_REDIS_URL are set
 *
 * A fenced block without these marks is shown to the reader and never run (a browser, docker, ...).
 */
export type BlockKind = 'run' | 'server';

export interface Expectation {
  format: 'json' | 'text';
  text: string;
}

export interface RunnableBlock {
  kind: BlockKind;
  retry: boolean;
  /** The 1-based line of the opening fence, for messages. */
  line: number;
  code: string;
  expect: Expectation | null;
}

export interface Guide {
  blocks: RunnableBlock[];
  needsPostgresAndRedis: boolean;
}

const FENCE = /^```(\S*)\s*(?:\{([^}]*)\})?\s*$/;
const HIDDEN_EXPECT = /^<!-- expect (json|text):([\s\S]*?)-->$/;

/** The fenced blocks and hidden expectations of a markdown text, in order. */
function* piecesOf(markdown: string): Generator<{ line: number; language: string; marks: string[]; body: string }> {
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const current = lines[index] as string;
    const fence = FENCE.exec(current);
    if (fence !== null && current.startsWith('```') && current !== '```') {
      const start = index;
      const body: string[] = [];
      index += 1;
      while (index < lines.length && lines[index] !== '```') {
        body.push(lines[index] as string);
        index += 1;
      }
      yield { line: start + 1, language: fence[1] ?? '', marks: (fence[2] ?? '').split(/\s+/).filter(Boolean), body: body.join('\n') };
      continue;
    }
    if (current.startsWith('<!-- expect ')) {
      let text = current;
      const start = index;
      while (!text.trimEnd().endsWith('-->') && index + 1 < lines.length) {
        index += 1;
        text += `\n${lines[index]}`;
      }
      const hidden = HIDDEN_EXPECT.exec(text.trim());
      if (hidden === null) throw new Error(`line ${start + 1}: an expect comment must read <!-- expect json: ... --> or <!-- expect text: ... -->`);
      yield { line: start + 1, language: hidden[1] as string, marks: ['expect'], body: (hidden[2] as string).trim() };
    }
  }
}

/** The runnable blocks of a guide, each with the expectation that follows it. */
export function parseGuide(markdown: string): Guide {
  const blocks: RunnableBlock[] = [];
  for (const piece of piecesOf(markdown)) {
    if (piece.marks.includes('test')) {
      const kind: BlockKind = piece.marks.includes('server') ? 'server' : 'run';
      blocks.push({ kind, retry: piece.marks.includes('retry'), line: piece.line, code: piece.body, expect: null });
    } else if (piece.marks.includes('expect')) {
      const owner = blocks.at(-1);
      if (owner === undefined || owner.expect !== null) throw new Error(`line ${piece.line}: an expectation must follow a runnable block, one each`);
      if (piece.language !== 'json' && piece.language !== 'text') throw new Error(`line ${piece.line}: expectations are json or text`);
      owner.expect = { format: piece.language, text: piece.body };
    }
  }
  return { blocks, needsPostgresAndRedis: /<!-- test: needs postgres redis -->/.test(markdown) };
}
