import { describe, expect, it } from 'vitest';
import { snakeToCamel, valueAt } from './paths.ts';

describe('valueAt', () => {
  it.each([
    ['a leaf', { a: { b: 1 } }, 'a.b', 1],
    ['a top-level field', { a: 'x' }, 'a', 'x'],
    ['through an absent parent', { a: undefined }, 'a.b', undefined],
    ['through a null parent', { a: null }, 'a.b', null],
    ['a missing leaf', { a: {} }, 'a.b', undefined],
  ])('%s', (_case, root, path, want) => {
    expect(valueAt(root, path)).toBe(want);
  });
});

describe('snakeToCamel', () => {
  it.each([
    ['listener_config', 'listenerConfig'],
    ['k8s_namespace', 'k8sNamespace'],
    ['name', 'name'],
  ])('%s', (snake, camel) => {
    expect(snakeToCamel(snake)).toBe(camel);
  });
});
