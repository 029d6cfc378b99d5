import { describe, expect, it } from 'vitest';
import type { PlanKube, PlanWorld } from './model.ts';
import {
  HIDDEN,
  HIDDEN_NOTE,
  platformValuesShown,
  shownChanges,
  type ValueFacts,
} from './value-visibility.ts';

const worldOf = (over: { kube?: 'none' | 'secrets' | 'no-secrets'; showValues?: boolean }): PlanWorld => ({
  kube:
    over.kube === 'none' || over.kube === undefined
      ? undefined
      : ({ maySeeSecrets: async () => over.kube === 'secrets' } as unknown as PlanKube),
  defaultCredentials: { baseUrl: 'https://cp.test', apiKey: 'k' },
  digestKey: undefined,
  controlPlane: () => {
    throw new Error('not used');
  },
  ...(over.showValues ? { showValues: true } : {}),
});

const facts = (over: Partial<ValueFacts> = {}): ValueFacts => ({
  namespace: 'team-b',
  ownCredentials: false,
  recordedId: 'd1',
  observedId: 'd1',
  ...over,
});

describe('platformValuesShown', () => {
  it.each<[string, Parameters<typeof worldOf>[0], Partial<ValueFacts>, boolean]>([
    ["the object's own credentials", { kube: 'none' }, { ownCredentials: true, recordedId: undefined }, true],
    ['--show-values', { kube: 'none', showValues: true }, { recordedId: undefined }, true],
    ["the controller's key, recorded, Secrets readable", { kube: 'secrets' }, {}, true],
    ["the controller's key, recorded, Secrets not readable", { kube: 'no-secrets' }, {}, false],
    ["the controller's key, no cluster", { kube: 'none' }, {}, false],
    [
      "the controller's key, found by name (nothing recorded)",
      { kube: 'secrets' },
      { recordedId: undefined },
      false,
    ],
    [
      "the controller's key, another deployment than the recorded one",
      { kube: 'secrets' },
      { observedId: 'd2' },
      false,
    ],
  ])('%s: shown is %s', async (_case, world, over, want) => {
    expect(await platformValuesShown(worldOf(world), facts(over))).toBe(want);
  });
});

describe('shownChanges', () => {
  const changes = [
    { field: 'source_config.resource_spec', from: { cpu: 0.5 }, to: { cpu: 1 } },
    { field: 'secrets', from: ['A'], to: 'the same names, values changed' },
  ];

  it('hides every platform value but the secret names, and says why', () => {
    const notes: string[] = [];
    expect(shownChanges(changes, false, notes)).toEqual([
      { field: 'source_config.resource_spec', from: HIDDEN, to: { cpu: 1 } },
      changes[1],
    ]);
    expect(notes).toEqual([HIDDEN_NOTE]);
  });

  it('shown: as they are, no note', () => {
    const notes: string[] = [];
    expect(shownChanges(changes, true, notes)).toBe(changes);
    expect(notes).toEqual([]);
  });
});
