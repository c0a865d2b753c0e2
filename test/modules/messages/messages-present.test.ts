import { describe, expect, it } from 'vitest';
import { type MessageRow, presentCreatedMessageJson, presentMessage } from '../../../src/modules/messages/messages.present.js';

/**
 * The create path writes and answers the record as text built by hand (presentCreatedMessageJson);
 * every other path presents rows through presentMessage. The two must spell the same JSON, key order
 * included, for every shape a created row can take: random rows, with strings that need escaping.
 */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

const PIECES = ['a', 'Z', '9', '-', '_', ' ', '"', '\\', '\n', '\u0000', '\u2028', 'é', '😀', '</script>', '\ud800'];

function randomRow(next: () => number): MessageRow {
  const text = (max: number) => Array.from({ length: Math.floor(next() * max) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  const maybe = <T>(value: T): T | null => (next() < 0.5 ? null : value);
  const createdAt = Math.floor(next() * 4_000_000_000_000);
  const data = next() < 0.5 ? { text: text(40) } : { nested: { list: [1, -0, 2.5e-7, true, null, text(10)], [text(5)]: text(5) } };
  return {
    id: text(24),
    channel_id: text(20),
    segment: Math.floor(next() * 2 ** 31),
    user_id: text(20),
    type: ['text', 'custom', 'image', 'file'][Math.floor(next() * 4)] as string,
    data: JSON.stringify(data),
    tags: JSON.stringify(next() < 0.5 ? [] : [text(8), text(8)]),
    parent_id: maybe(text(24)),
    children_number: Math.floor(next() * 10),
    is_deleted: next() < 0.9 ? 0 : 1,
    file_id: maybe(text(24)),
    media: null,
    flag_count: Math.floor(next() * 3),
    reactions: next() < 0.5 ? '{}' : JSON.stringify({ [text(6)]: 2 }),
    reactions_count: Math.floor(next() * 3),
    edited_at: maybe(createdAt + 1000),
    created_at: createdAt,
    updated_at: next() < 0.7 ? createdAt : createdAt + 5,
    topic_id: maybe(text(12)),
  };
}

describe('presentCreatedMessageJson', () => {
  it('spells exactly JSON.stringify(presentMessage(row)) for 2,000 random rows', () => {
    const next = random(20261123);
    for (let index = 0; index < 2000; index += 1) {
      const row = randomRow(next);
      expect(presentCreatedMessageJson(row)).toBe(JSON.stringify(presentMessage(row)));
    }
  });

  it('fails when a field differs (the comparison above can see a difference)', () => {
    const row = randomRow(random(7));
    expect(presentCreatedMessageJson({ ...row, segment: row.segment + 1 })).not.toBe(JSON.stringify(presentMessage(row)));
  });
});
