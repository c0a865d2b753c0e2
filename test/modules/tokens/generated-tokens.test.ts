import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateToken, hashToken } from '../../../src/modules/tokens/tokens.service.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('generated tokens', () => {
  it('are a time-ordered id, a dot and 32 random bytes, never repeated across many refills of the random block', () => {
    const tokens = Array.from({ length: 5000 }, generateToken);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens.slice(0, 300)) {
      expect(token).toMatch(/^[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(25), 'base64url')).toHaveLength(32);
    }
    // No two secrets share a 16-byte half: random bytes are handed out once, not reused at an offset.
    const halves = tokens.flatMap((token) => {
      const bytes = Buffer.from(token.slice(25), 'base64url');
      return [bytes.subarray(0, 16).toString('hex'), bytes.subarray(16).toString('hex')];
    });
    expect(new Set(halves).size).toBe(halves.length);
  });

  it('are stored under keys that follow creation order, 64 characters, derived from the whole token', () => {
    const tokens = Array.from({ length: 200 }, generateToken);
    const keys = tokens.map(hashToken);
    expect([...keys].sort()).toEqual(keys);
    for (const [index, key] of keys.entries()) {
      const token = tokens[index] as string;
      expect(key).toHaveLength(64);
      expect(key).toBe(token.slice(0, 24) + sha256(token).slice(0, 40));
    }
    // Another secret behind the same id is another key; the key never contains the secret.
    const [first] = tokens as [string];
    const forged = `${first.slice(0, 25)}${'A'.repeat(43)}`;
    expect(hashToken(forged)).not.toBe(hashToken(first));
    expect(keys.some((key) => key.includes(first.slice(25)))).toBe(false);
  });

  it('keys any other value (environment admin tokens, codes, older tokens) as its plain SHA-256', () => {
    for (const value of ['an-admin-token-from-the-environment', 'x'.repeat(43), `${'g'.repeat(24)}.secret`, `${'a'.repeat(24)}.`]) {
      expect(hashToken(value)).toBe(sha256(value));
    }
  });
});
