import { getEventListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortScope } from './abort-scope.ts';

describe('AbortScope', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const reasonOf = (signal: AbortSignal) => signal.reason as unknown;

  it.each([
    {
      name: 'a source aborts: its reason',
      act: (sources: AbortController[]) => sources[1]?.abort('stopping'),
      aborted: true,
      reason: 'stopping',
      timedOut: false,
    },
    {
      name: 'the deadline passes: a TimeoutError',
      act: () => vi.advanceTimersByTime(1000),
      aborted: true,
      reason: 'TimeoutError',
      timedOut: true,
    },
    {
      name: 'abort(): its reason',
      act: (_: AbortController[], scope: AbortScope) => scope.abort('too large'),
      aborted: true,
      reason: 'too large',
      timedOut: false,
    },
    {
      name: 'ended: neither a source nor the deadline aborts it',
      act: (sources: AbortController[], scope: AbortScope) => {
        scope.end();
        sources[0]?.abort('late');
        vi.advanceTimersByTime(5000);
      },
      aborted: false,
      reason: undefined,
      timedOut: false,
    },
    {
      name: 'before its deadline, nothing',
      act: () => vi.advanceTimersByTime(999),
      aborted: false,
      reason: undefined,
      timedOut: false,
    },
  ])('$name', ({ act, aborted, reason, timedOut }) => {
    const sources = [new AbortController(), new AbortController()];
    const scope = new AbortScope([sources[0]?.signal, undefined, sources[1]?.signal], 1000);
    act(sources, scope);
    expect(scope.signal.aborted).toBe(aborted);
    const got = reasonOf(scope.signal);
    expect(got instanceof DOMException ? got.name : got).toBe(reason);
    expect(scope.timedOut).toBe(timedOut);
  });

  it('leaves no listener on its sources once ended or aborted, and no timer', () => {
    const source = new AbortController();
    const ended = new AbortScope([source.signal], 1000);
    const aborted = new AbortScope([source.signal], 1000);
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(2);
    ended.end();
    aborted.abort();
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a source already aborted aborts it at once, with nothing to end', () => {
    const scope = new AbortScope([AbortSignal.abort('gone')], 1000);
    expect(scope.signal.aborted).toBe(true);
    expect(reasonOf(scope.signal)).toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('without a deadline it sets no timer', () => {
    const scope = new AbortScope([new AbortController().signal]);
    expect(vi.getTimerCount()).toBe(0);
    scope.end();
  });
});

describe("the controller's signals", () => {
  it('are AbortScopes: no module of the controller uses AbortSignal.any or AbortSignal.timeout', () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), '..');
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !/\.test(-support)?\.ts$/.test(f) && !f.startsWith('simulator/'))
      .filter((f) => /AbortSignal\.(any|timeout)\(/.test(readFileSync(join(src, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
