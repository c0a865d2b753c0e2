import { describe, expect, it } from 'vitest';
import { parseGuide } from './markdown.js';
import { jsonValuesOf, outputDifferences } from './matching.js';

/** The rules the guides test checks samples with: they accept a real answer and refuse a wrong one. */
describe('guide samples', () => {
  const sample = '{"userId":"alice","createdAt":"2025-03-14T09:30:00.000Z","id":"6b0785ab6f722fed592b7b73","memberCount":3,"exp":1795658662}';

  it('match an answer whose generated values (ids, times) differ, and which has more fields', () => {
    const real = '{"userId":"alice","createdAt":"2026-11-26T01:04:05.838Z","id":"6b0786126f722fed592b7b97","memberCount":3,"exp":1800000000,"extra":1}';
    expect(outputDifferences('json', sample, real)).toEqual([]);
  });

  it('refuse a different fixed value, a missing field, a value of another kind', () => {
    expect(outputDifferences('json', sample, sample.replace('"alice"', '"bob"'))).toEqual(['$1.userId: expected "alice", got "bob"']);
    expect(outputDifferences('json', sample, sample.replace('"memberCount":3', '"memberCount":2'))).toHaveLength(1);
    expect(outputDifferences('json', sample, sample.replace(',"memberCount":3', ''))).toEqual(['$1: no field memberCount']);
    expect(outputDifferences('json', sample, sample.replace('"6b0785ab6f722fed592b7b73"', '"general"'))).toHaveLength(1);
    expect(outputDifferences('json', '[1,2]', '[1,2,3]')).toHaveLength(1);
    expect(outputDifferences('json', '{"a":1}', 'not json')).toHaveLength(1);
  });

  it('read several JSON values printed back to back, and "…" as any text', () => {
    expect(jsonValuesOf('{"a":"}"}[1]"x"\n42')).toEqual([{ a: '}' }, [1], 'x', 42]);
    expect(outputDifferences('json', '{"groupId":"dm-…","eventId":"…"}', '{"groupId":"dm-a00a2bc5","eventId":5}')).toEqual([]);
    expect(outputDifferences('json', '{"groupId":"dm-…"}', '{"groupId":"support"}')).toHaveLength(1);
  });

  it('match printed lines in order, words by the same rules', () => {
    const printed = 'open\n{"id":7,"type":"message.created"}\nclosed 4009 since is past the newest event\n';
    expect(outputDifferences('text', 'open\nclosed 4009 …', printed)).toEqual([]);
    expect(outputDifferences('text', 'closed 4009 …\nopen', printed)).toHaveLength(1);
    expect(outputDifferences('text', 'closed 4003 …', printed)).toHaveLength(1);
    expect(outputDifferences('text', 'client_id 6b07858db07cb4451c33eb45', 'client_id      6b0786126f722fed592b7b97')).toEqual([]);
  });

  it('take runnable blocks and the sample after each from the markdown', () => {
    const guide = parseGuide(
      ['```sh {test server}', 'npm start', '```', '```sh', 'not run', '```', '```sh {test retry}', 'cat log', '```', '```text {expect}', 'open', '```'].join(
        '\n',
      ),
    );
    expect(guide.blocks.map((block) => [block.kind, block.retry, block.code, block.expect?.text])).toEqual([
      ['server', false, 'npm start', undefined],
      ['run', true, 'cat log', 'open'],
    ]);
  });
});
