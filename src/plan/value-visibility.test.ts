import { describe, expect, it } from 'vitest';
import type { PlanKube, PlanWorld } from './model.ts';
import {
  HIDDEN,
  HIDDEN_NOTE,
  otherNamespaceNote,
  platformValuesHidden,
  shownChanges,
  type ValueFacts,
} from './value-visibility.ts';

const worldOf = (over: {
  kube?: 'none' | 'secrets' | 'no-secrets';
  showValues?: boolean;
  valuesNamespaces?: string[];
}): PlanWorld => ({
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
  valuesNamespaces: over.valuesNamespaces ?? ['team-b'],
});

const facts = (over: Partial<ValueFacts> = {}): ValueFacts => ({
  namespace: 'team-b',
  ownCredentials: false,
  recordedId: 'd1',
  observedId: 'd1',
  ...over,
});

describe('platformValuesHidden', () => {
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
    expect((await platformValuesHidden(worldOf(world), facts(over))) === undefined).toBe(want);
  });
});

// Issue 52, hole 8: the readers of a CI log are not the CI user. An input that names another team's
// namespace must not print that namespace's values, whatever the CI user may read there.
describe('hole 8: values of a namespace the readers may not see stay hidden', () => {
  it.each<[string, Parameters<typeof worldOf>[0], Partial<ValueFacts>, boolean]>([
    [
      "another namespace, the controller's key, recorded, Secrets readable",
      { kube: 'secrets', valuesNamespaces: ['team-a'] },
      {},
      false,
    ],
    [
      "another namespace, the object's own credentials",
      { kube: 'secrets', valuesNamespaces: ['team-a'] },
      { ownCredentials: true },
      false,
    ],
    ['no namespace named for the readers', { kube: 'secrets', valuesNamespaces: [] }, {}, false],
    [
      'a namespace named for the readers',
      { kube: 'secrets', valuesNamespaces: ['team-a', 'team-b'] },
      {},
      true,
    ],
    [
      '--show-values still prints every value',
      { kube: 'secrets', valuesNamespaces: [], showValues: true },
      {},
      true,
    ],
  ])('%s: shown is %s', async (_case, world, over, want) => {
    expect((await platformValuesHidden(worldOf(world), facts(over))) === undefined).toBe(want);
  });

  it('the note names the namespace and the setting', async () => {
    const note = await platformValuesHidden(
      worldOf({ kube: 'secrets', valuesNamespaces: ['team-a'] }),
      facts(),
    );
    expect(note).toBe(otherNamespaceNote('team-b', ['team-a']));
    expect(note).toContain('team-b');
    expect(note).toContain('--show-values-in');
  });
});

describe('shownChanges', () => {
  const changes = [
    { field: 'source_config.resource_spec', from: { cpu: 0.5 }, to: { cpu: 1 } },
    { field: 'secrets', from: ['A'], to: 'the same names, values changed' },
  ];

  it('hides every platform value but the secret names, and says why', () => {
    const notes: string[] = [];
    expect(shownChanges(changes, HIDDEN_NOTE, notes)).toEqual([
      { field: 'source_config.resource_spec', from: HIDDEN, to: { cpu: 1 } },
      changes[1],
    ]);
    expect(notes).toEqual([HIDDEN_NOTE]);
  });

  it('shown: as they are, no note', () => {
    const notes: string[] = [];
    expect(shownChanges(changes, undefined, notes)).toBe(changes);
    expect(notes).toEqual([]);
  });
});
