/** Gate `window`, row by row: the facts so far and its verdict (undefined: the next gate decides). */
import { describe, expect, it } from 'vitest';
import { read } from '../facts.test-support.ts';
import type { DeletionFacts } from '../facts.ts';
import type { DeletionVerdict } from '../verdict.ts';
import { window } from './window.ts';

const CLOSED = { message: 'the deletion waits: ...', retryAfterMs: 60_000 };

const rows: [string, DeletionFacts, Partial<DeletionVerdict> | undefined][] = [
  ['no window closed: the next gate', read({}), undefined],
  [
    'a window closed: the DELETE waits until it opens',
    read({ windowClosed: CLOSED }),
    { kind: 'wait', why: 'window', reason: 'WindowClosed', ...CLOSED },
  ],
  ['the DELETE sent already: followed to the end', read({ windowClosed: CLOSED, sent: true }), undefined],
];

describe('window', () => {
  it.each(rows)('%s', (_, facts, expected) => {
    const verdict = window(facts);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject(expected);
  });
});
