import { describe, expect, it } from 'vitest';
import { deriveRunToken, tokenMatches } from './token.ts';

const key = Buffer.alloc(32, 7);
const token = deriveRunToken(key, 'uid-1', 'thread-1');

describe('webhook tokens', () => {
  it('derives a stable per-run token that depends on the key, the uid and the run', () => {
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveRunToken(key, 'uid-1', 'thread-1')).toBe(token);
    expect(deriveRunToken(key, 'uid-2', 'thread-1')).not.toBe(token);
    expect(deriveRunToken(key, 'uid-1', 'thread-2')).not.toBe(token);
    expect(deriveRunToken(Buffer.alloc(32, 8), 'uid-1', 'thread-1')).not.toBe(token);
  });

  it.each<[string, string | null | undefined, boolean]>([
    ['the right token', token, true],
    ['a missing token', null, false],
    ['an empty token', '', false],
    ['another object token', deriveRunToken(key, 'uid-2', 'thread-1'), false],
    ['an earlier run token', deriveRunToken(key, 'uid-1', 'thread-0'), false],
    ['a token one character short', token.slice(1), false],
    ['a token with a character more', `${token}0`, false],
    ['the right token in upper case', token.toUpperCase(), false],
    ['a multi-byte string of the same length', 'é'.repeat(32), false],
  ])('%s: %s', (_name, given, expected) => {
    expect(tokenMatches(token, given)).toBe(expected);
  });
});
