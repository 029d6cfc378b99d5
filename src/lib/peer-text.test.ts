import { describe, expect, it } from 'vitest';
import { cleanPeerText, escapeInvisible } from './peer-text.ts';

describe('cleanPeerText', () => {
  it.each<[string, string, number, string]>([
    ['plain text is kept', 'graph not found', 100, 'graph not found'],
    ['control characters become spaces', 'a\u0000b\u0007c', 100, 'a b c'],
    ['escape sequences lose their ESC', '\u001b[31mred\u001b[0m', 100, '[31mred [0m'],
    ['newlines and tabs collapse', 'one\n\n\ttwo\r\nthree', 100, 'one two three'],
    ['bidi overrides go', 'abc\u202Edef', 100, 'abc def'],
    ['line separators go', 'a\u2028b', 100, 'a b'],
    ['long text is cut', 'x'.repeat(50), 10, `${'x'.repeat(9)}…`],
    ['a cut never splits a surrogate pair', '😀'.repeat(5), 3, '😀😀…'],
    ['unicode letters stay', 'café ünïcode', 100, 'café ünïcode'],
  ])('%s', (_case, input, max, want) => {
    expect(cleanPeerText(input, max)).toBe(want);
  });
});

describe('escapeInvisible', () => {
  it.each<[string, string, string]>([
    ['plain text is kept', 'café "x"', 'café "x"'],
    ['an escape sequence shows its ESC', '\u001b[2J', '\\u001b[2J'],
    ['a C1 CSI shows', 'a\u009b1A', 'a\\u009b1A'],
    ['a line break shows', 'a\nb', 'a\\u000ab'],
    ['a bidi override shows', 'a\u202eb', 'a\\u202eb'],
  ])('%s', (_case, input, want) => {
    expect(escapeInvisible(input)).toBe(want);
  });
});
