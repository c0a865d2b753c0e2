import { describe, expect, it } from 'vitest';
import { generateToken } from '../src/modules/tokens/tokens.service.js';

describe('generated tokens', () => {
  it('are 32 random bytes each, never repeated across many refills of the random block', () => {
    const tokens = Array.from({ length: 5000 }, generateToken);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens.slice(0, 300)) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
    // No two tokens share a 16-byte half: bytes are handed out once, not reused at an offset.
    const halves = tokens.flatMap((token) => {
      const bytes = Buffer.from(token, 'base64url');
      return [bytes.subarray(0, 16).toString('hex'), bytes.subarray(16).toString('hex')];
    });
    expect(new Set(halves).size).toBe(halves.length);
  });
});
