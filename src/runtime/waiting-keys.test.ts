import { describe, expect, it } from 'vitest';
import { WaitingKeys } from './waiting-keys.ts';

type Step =
  | { add: string; first?: boolean; tenant?: string; ns?: string }
  | { putFirst: string }
  | { remove: string };

function apply(steps: Step[]): WaitingKeys {
  const waiting = new WaitingKeys();
  for (const step of steps) {
    if ('add' in step) waiting.add(step.add, step.first ?? false, step.tenant, step.ns ?? '');
    else if ('putFirst' in step) waiting.putFirst(step.putFirst);
    else waiting.remove(step.remove);
  }
  return waiting;
}

describe('WaitingKeys', () => {
  it.each<{ name: string; steps: Step[]; order: string[] }>([
    { name: 'in the order added', steps: [{ add: 'a' }, { add: 'b' }, { add: 'c' }], order: ['a', 'b', 'c'] },
    {
      name: 'continuing keys first, in the order put there',
      steps: [{ add: 'a' }, { add: 'b', first: true }, { add: 'c' }, { add: 'd', first: true }],
      order: ['b', 'd', 'a', 'c'],
    },
    {
      name: 'a key put first moves behind the continuing ones',
      steps: [{ add: 'a' }, { add: 'b', first: true }, { add: 'c' }, { putFirst: 'c' }],
      order: ['b', 'c', 'a'],
    },
    {
      name: 'a continuing key put first again keeps its place',
      steps: [{ add: 'a', first: true }, { add: 'b', first: true }, { putFirst: 'a' }],
      order: ['a', 'b'],
    },
    {
      name: 'removed from anywhere: head, middle, tail, a continuing one',
      steps: [
        { add: 'a' },
        { add: 'b' },
        { add: 'c' },
        { add: 'd' },
        { add: 'e', first: true },
        { remove: 'a' },
        { remove: 'c' },
        { remove: 'd' },
        { remove: 'e' },
        { remove: 'absent' },
        { putFirst: 'absent' },
      ],
      order: ['b'],
    },
  ])('$name', ({ steps, order }) => {
    const waiting = apply(steps);
    expect(waiting.keys()).toEqual(order);
    expect(waiting.size).toBe(order.length);
    expect(waiting.oldest()).toBe(order[0]);
  });

  it.each<{ name: string; blockedTenants: string[]; blockedNamespaces: string[]; first: string | undefined }>(
    [
      { name: 'the oldest when it may go', blockedTenants: [], blockedNamespaces: [], first: 'n2/h-3' },
      { name: 'past a tenant that may not', blockedTenants: ['h'], blockedNamespaces: [], first: 'n1/g-1' },
      {
        name: 'past a namespace that may not',
        blockedTenants: [],
        blockedNamespaces: ['n2'],
        first: 'n1/h-1',
      },
      { name: 'past both', blockedTenants: ['h'], blockedNamespaces: ['n1'], first: 'n2/g-2' },
      { name: 'none may go', blockedTenants: ['h', 'g'], blockedNamespaces: [], first: undefined },
    ],
  )('the first key that may go: $name', ({ blockedTenants, blockedNamespaces, first }) => {
    const waiting = apply([
      { add: 'n1/h-1', tenant: 'h', ns: 'n1' },
      { add: 'n1/h-2', tenant: 'h', ns: 'n1' },
      { add: 'n1/g-1', tenant: 'g', ns: 'n1' },
      { add: 'n2/g-2', tenant: 'g', ns: 'n2' },
      { add: 'n2/h-3', tenant: 'h', ns: 'n2' },
      { putFirst: 'n2/h-3' },
    ]);
    // The order itself: n2/h-3 was put first.
    expect(waiting.keys()).toEqual(['n2/h-3', 'n1/h-1', 'n1/h-2', 'n1/g-1', 'n2/g-2']);
    const got = waiting.firstThatMayGo(
      (tenant) => !blockedTenants.includes(tenant as string),
      (ns) => !blockedNamespaces.includes(ns),
    );
    expect(got).toBe(first);
  });

  it('finds a key that may go behind 10,000 that may not without asking about each of them', () => {
    const waiting = new WaitingKeys();
    for (let i = 0; i < 10_000; i++) waiting.add(`busy/k${i}`, false, 'busy', 'busy');
    waiting.add('quiet/k', false, 'quiet', 'quiet');
    let asked = 0;
    const got = waiting.firstThatMayGo(
      (tenant) => {
        asked += 1;
        return tenant === 'quiet';
      },
      () => true,
    );
    expect(got).toBe('quiet/k');
    // The head, then each of the two tenants once.
    expect(asked).toBeLessThanOrEqual(3);
  });

  it('forgets a group once its last key leaves', () => {
    const waiting = apply([
      { add: 'a', tenant: 't', ns: 'n' },
      { remove: 'a' },
      { add: 'b', tenant: 'u', ns: 'm' },
    ]);
    let tenantsAsked = 0;
    waiting.firstThatMayGo(
      () => {
        tenantsAsked += 1;
        return false;
      },
      () => true,
    );
    // The head (b), then its tenant u: t's group is gone.
    expect(tenantsAsked).toBe(2);
  });
});
