import { describe, expect, it } from 'vitest';
import type { Condition } from '../api/common.ts';
import { NOT_OBSERVED_REASON, objectState, type StatedObject } from './object-state.ts';

const at = '2026-01-01T00:00:00Z';
const c = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: at,
});
const obj = (
  observedGeneration: number | undefined,
  conditions: Condition[],
  generation = 2,
): StatedObject => ({
  metadata: { generation },
  status: { ...(observedGeneration === undefined ? {} : { observedGeneration }), conditions },
});

describe('objectState', () => {
  it.each<[string, StatedObject, { state: string; reason: string }]>([
    [
      'no status at all',
      { metadata: { generation: 1 } },
      { state: 'reconciling', reason: NOT_OBSERVED_REASON },
    ],
    ['the unobserved default', obj(0, []), { state: 'reconciling', reason: NOT_OBSERVED_REASON }],
    [
      'a spec edit not yet observed, Ready still True',
      obj(1, [c('Ready', 'True', 'Succeeded')]),
      { state: 'reconciling', reason: NOT_OBSERVED_REASON },
    ],
    ['ready', obj(2, [c('Ready', 'True', 'Succeeded')]), { state: 'ready', reason: 'Succeeded' }],
    [
      'stalled',
      obj(2, [c('Ready', 'False', 'Rejected'), c('Stalled', 'True', 'Rejected')]),
      { state: 'stalled', reason: 'Rejected' },
    ],
    [
      'reconciling with Ready kept True (a transient error)',
      obj(2, [c('Ready', 'True', 'Succeeded'), c('Reconciling', 'True', 'ControlPlaneUnavailable')]),
      { state: 'reconciling', reason: 'ControlPlaneUnavailable' },
    ],
    [
      'Ready False without Reconciling (verification under way)',
      obj(2, [c('Ready', 'False', 'Verifying')]),
      { state: 'reconciling', reason: 'Verifying' },
    ],
    [
      'paused, even before the controller observed it',
      obj(0, [c('Ready', 'Unknown', 'Paused'), c('Paused', 'True', 'Paused')]),
      { state: 'paused', reason: 'Paused' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(objectState(input)).toEqual(expected);
  });
});
