import { describe, expect, it } from 'vitest';
import {
  LabelSelectorError,
  parseLabelSelector,
  type StructuredSelector,
  structuredSelector,
} from './label-selector.ts';

describe('parseLabelSelector: matches', () => {
  it.each<[string, string, Record<string, string>, boolean]>([
    ['equality', 'a=b', { a: 'b' }, true],
    ['double equals', 'a==b', { a: 'b' }, true],
    ['equality, other value', 'a=b', { a: 'c' }, false],
    ['equality, absent', 'a=b', {}, false],
    ['inequality', 'a!=b', { a: 'c' }, true],
    ['inequality, absent', 'a!=b', {}, true],
    ['inequality, equal', 'a!=b', { a: 'b' }, false],
    ['in', 'a in (x, y)', { a: 'y' }, true],
    ['in, other', 'a in (x,y)', { a: 'z' }, false],
    ['notin', 'a notin (x,y)', { a: 'z' }, true],
    ['notin, listed', 'a notin (x,y)', { a: 'x' }, false],
    ['exists', 'a', { a: '' }, true],
    ['exists, absent', 'a', {}, false],
    ['does not exist', '!a', {}, true],
    ['does not exist, present', '!a', { a: 'x' }, false],
    ['prefixed key', 'deploy.agents.dev/tier=platform', { 'deploy.agents.dev/tier': 'platform' }, true],
    ['all terms must hold', 'a=b,c in (d),!e', { a: 'b', c: 'd' }, true],
    ['all terms must hold, one fails', 'a=b,c in (d),!e', { a: 'b', c: 'd', e: '1' }, false],
    ['empty selector', '', { a: 'b' }, true],
  ])('%s', (_case, selector, labels, want) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(want);
  });
});

describe('parseLabelSelector: refuses', () => {
  it.each<[string, string]>([
    ['a bad key', 'a b=c'],
    ['a bad value', 'a=b c'],
    ['a value too long', `a=${'x'.repeat(64)}`],
    ['a bad key in a set', '-a in (x)'],
    ['a space in a value', 'a=b c'],
    ['an unclosed set', 'a in (x'],
  ])('%s', (_case, selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(LabelSelectorError);
  });
});

describe('structuredSelector: matches as metav1.LabelSelector', () => {
  it.each<[string, StructuredSelector, Record<string, string> | undefined, boolean]>([
    ['empty: everything', {}, undefined, true],
    ['matchLabels equal', { matchLabels: { tier: 'prod' } }, { tier: 'prod', x: 'y' }, true],
    ['matchLabels differ', { matchLabels: { tier: 'prod' } }, { tier: 'dev' }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, { tier: 'b' }, true],
    ['NotIn, absent', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, {}, true],
    ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, {}, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, {}, true],
    [
      'labels AND expressions',
      { matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] },
      { a: '1' },
      false,
    ],
  ])('%s', (_name, selector, labels, expected) => {
    expect(structuredSelector(selector).matches(labels)).toBe(expected);
  });
});
