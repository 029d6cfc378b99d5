import { describe, expect, it } from 'vitest';
import type { NamespaceState } from './informer.ts';
import { NamespaceSync } from './namespace-sync.ts';

const source = (...states: Omit<NamespaceState, 'informer'>[]) => ({
  namespaceStates: () => states.map((s) => ({ informer: '/apis/x', ...s })),
});

describe('NamespaceSync', () => {
  it.each<[string, Omit<NamespaceState, 'informer'>[], boolean, Record<string, boolean>]>([
    [
      'all listed',
      [
        { namespace: 'a', synced: true },
        { namespace: 'b', synced: true },
      ],
      true,
      { a: true, b: true },
    ],
    [
      'one forbidden: settled, the other ready',
      [
        { namespace: 'a', synced: true },
        { namespace: 'b', synced: false, error: 'forbidden (HTTP 403)' },
      ],
      true,
      { a: true, b: false },
    ],
    [
      'one still listing: not settled',
      [
        { namespace: 'a', synced: true },
        { namespace: 'b', synced: false },
      ],
      false,
      { a: true, b: false },
    ],
    ['all namespaces, not listed', [{ namespace: '', synced: false }], false, { a: false }],
  ])('%s', (_, states, settled, ready) => {
    const sync = new NamespaceSync([source(...states)]);
    expect(sync.settled()).toBe(settled);
    for (const [ns, expected] of Object.entries(ready)) expect(sync.ready(ns)).toBe(expected);
  });

  it('a namespace is ready only when every informer listed it, and the detail names the failing one', () => {
    const sync = new NamespaceSync([
      source({ namespace: 'a', synced: true }, { namespace: 'b', synced: true }),
      source(
        { namespace: 'a', synced: true },
        { namespace: 'b', synced: false, error: 'secrets is forbidden (HTTP 403)' },
      ),
    ]);
    expect(sync.ready('a')).toBe(true);
    expect(sync.ready('b')).toBe(false);
    expect(sync.detail()).toBe('namespace b not synced for /apis/x: secrets is forbidden (HTTP 403)');
  });
});
