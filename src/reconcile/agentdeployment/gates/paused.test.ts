import { describe, expect, it } from 'vitest';
import { Annotation } from '../../../api/names.ts';
import { facts } from '../facts.test-support.ts';
import { paused } from './paused.ts';

describe('gate paused', () => {
  it.each<[string, Record<string, string>, object | undefined]>([
    ['no annotation: the next gate decides', {}, undefined],
    ['paused: nothing sent', { [Annotation.Paused]: 'true' }, { kind: 'paused' }],
    ['paused "false": not paused', { [Annotation.Paused]: 'false' }, undefined],
    [
      'a poll interval out of bounds: stalled',
      { [Annotation.PollInterval]: '1ms' },
      { kind: 'stall', reason: 'InvalidAnnotation' },
    ],
    ['a poll interval in bounds', { [Annotation.PollInterval]: '5m' }, undefined],
    [
      'paused wins over a bad interval',
      { [Annotation.Paused]: 'true', [Annotation.PollInterval]: 'x' },
      { kind: 'paused' },
    ],
  ])('%s', (_, annotations, expected) => {
    const verdict = paused(facts({ annotations }));
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatchObject({ gate: 'paused', ...expected });
  });
});
