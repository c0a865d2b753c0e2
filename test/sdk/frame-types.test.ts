import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repoDir = path.resolve(import.meta.dirname, '../..');
/** Never written to disk: the compiler host below serves it. Beside this test, so its imports resolve as they would here. */
const defaultFixturePath = path.join(import.meta.dirname, 'frame-narrowing.fixture.ts');

/**
 * Code an app writes against the SDK's frames. The lines marked `wrong:` must not compile, and nothing
 * else may fail: together they show that `frame.type` narrows `frame.data` to that type's payload, and
 * that a field of another type's payload is refused.
 */
const FIXTURE = `import { isFrame, type StreamFrame } from '../../packages/client/src/index.js';

export function use(frame: StreamFrame): string[] {
  const seen: string[] = [];
  if (frame.type === 'message.created') {
    const id: string = frame.data.messageId;
    const segment: number = frame.data.channelSegment;
    const parent: string | null = frame.data.parentId;
    seen.push(id, String(segment), parent ?? '');
    seen.push(frame.data.userIds.join()); // wrong: a message record has no userIds
  }
  switch (frame.type) {
    case 'member.added':
    case 'member.removed': {
      const ids: string[] = frame.data.userIds;
      const closed: boolean = frame.data.channel.isClosed;
      seen.push(...ids, String(closed));
      break;
    }
    case 'tray.updated':
      seen.push(frame.data.verb, frame.data.targetId, frame.data.targetGroup);
      seen.push(frame.data.messageId); // wrong: a tray change names no message
      break;
    case 'reaction.added':
      seen.push(frame.data.reaction.reactionName, frame.data.message.messageId);
      break;
    default:
      break;
  }
  if (isFrame(frame, 'channel.updated')) seen.push(frame.data.channel.displayName);
  seen.push(frame.data.messageId); // wrong: not narrowed, and not every frame's data has messageId
  if (frame.type === 'message.typo') seen.push('never'); // wrong: no frame has this type
  return seen;
}
`;

interface Problem {
  line: number;
  code: number;
  message: string;
}

/** The type errors of the fixture, compiled with the repository's own compiler options. */
function problemsOf(source: string, fixturePath = defaultFixturePath): Problem[] {
  const config = ts.readConfigFile(path.join(repoDir, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoDir);
  const host = ts.createCompilerHost(options);
  const fixture = ts.createSourceFile(fixturePath, source, ts.ScriptTarget.ES2022, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) =>
    path.resolve(fileName) === fixturePath ? fixture : getSourceFile(fileName, languageVersion, onError, shouldCreate);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => path.resolve(fileName) === fixturePath || fileExists(fileName);
  const program = ts.createProgram([fixturePath], { ...options, noEmit: true }, host);
  return [...program.getSyntacticDiagnostics(fixture), ...program.getSemanticDiagnostics(fixture)].map((diagnostic) => ({
    line: diagnostic.start === undefined ? 0 : fixture.getLineAndCharacterOfPosition(diagnostic.start).line + 1,
    code: diagnostic.code,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '),
  }));
}

const lineOf = (marker: string) => FIXTURE.split('\n').findIndex((line) => line.includes(marker)) + 1;

describe('SDK: stream frame types', () => {
  it('narrow frame.data by frame.type and refuse fields of other payloads', { timeout: 120_000 }, () => {
    const problems = problemsOf(FIXTURE);
    // 2339 "does not exist", or 2551 when TypeScript also suggests a near name; 2367 "no overlap".
    expect(problems.map(({ line, code }) => ({ line, code: code === 2551 ? 2339 : code }))).toEqual([
      { line: lineOf('a message record has no userIds'), code: 2339 },
      { line: lineOf('a tray change names no message'), code: 2339 },
      { line: lineOf('not every frame'), code: 2339 },
      { line: lineOf('no frame has this type'), code: 2367 },
    ]);
    expect(problems[0]?.message).toMatch(/^Property 'userIds' does not exist on type 'MessageOf<"text"> \| MessageOf<"image">/);
    expect(problems[1]?.message).toMatch(/^Property 'messageId' does not exist on type 'TrayChange'/);
    expect(problems[3]?.message).toMatch(/'"message\.typo"' have no overlap/);
  });

  /**
   * types.check.ts holds the SDK's type tests as `@ts-expect-error` lines (tsc checks them with the
   * repository). Compiled as it is it has no error; without its directives each marked line fails, so
   * every directive stands for a real refusal.
   */
  const checkPath = path.join(import.meta.dirname, 'types.check.ts');
  const checkSource = fs.readFileSync(checkPath, 'utf8');

  it('compile the type tests of types.check.ts with no error (every @ts-expect-error line is refused)', { timeout: 120_000 }, () => {
    expect(problemsOf(checkSource, checkPath)).toEqual([]);
  });

  it('refuse each line types.check.ts marks, once its directives are gone', { timeout: 120_000 }, () => {
    const lines = checkSource.split('\n');
    const marked = lines.flatMap((line, index) => (line.trim().startsWith('// @ts-expect-error') ? [index + 2] : []));
    expect(marked.length).toBeGreaterThanOrEqual(10);
    const bare = lines.map((line) => (line.trim().startsWith('// @ts-expect-error') ? '' : line)).join('\n');
    const failing = new Set(problemsOf(bare, checkPath).map((problem) => problem.line));
    expect(marked.filter((line) => !failing.has(line))).toEqual([]);
  });
});
