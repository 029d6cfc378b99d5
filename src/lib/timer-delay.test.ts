import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, timerDelay } from './timer-delay.ts';

describe('timerDelay', () => {
  it.each([
    [1000, 1000],
    [-5, 0],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, MAX_TIMER_MS],
    [86_400_000 * 30, MAX_TIMER_MS],
  ])('%d -> %d', (ms, expected) => expect(timerDelay(ms)).toBe(expected));
});
