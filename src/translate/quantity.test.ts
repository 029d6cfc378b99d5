import { describe, expect, it } from 'vitest';
import { formatBytes, formatCpu, parseQuantity, sameQuantity } from './quantity.ts';

describe('sameQuantity', () => {
  it.each([
    ['1Gi', '1024Mi', true],
    ['1Gi', '1073741824', true],
    ['500m', '0.5', true],
    ['500m', 0.5, true],
    ['1000m', '1', true],
    ['1', 1, true],
    ['1k', '1000', true],
    ['1e3', '1k', true],
    ['2Gi', '2G', false],
    ['512Mi', '0.5Gi', true],
    ['1536Mi', '1.5Gi', true],
    ['500m', '0.6', false],
    ['1Gi', '1Mi', false],
    ['0.1', '100m', true],
    ['.5', '500m', true],
    ['0', '0m', true],
    ['lots', 'lots', true],
    ['lots', '1', false],
  ])('%s vs %s -> %s', (a, b, expected) => {
    expect(sameQuantity(a, b)).toBe(expected);
  });
});

describe('parseQuantity', () => {
  it.each(['', 'abc', '1.2.3', '1Qi', '--1', 'Gi'])('%j is not a quantity', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('formatCpu', () => {
  it.each([
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['2', '2'],
    ['1.5', '1500m'],
    ['0.0001', '0.0001'],
    ['n/a', 'n/a'],
  ])('%s -> %s', (input, expected) => {
    expect(formatCpu(input)).toBe(expected);
  });
});

describe('formatBytes', () => {
  it.each([
    ['1024Mi', '1Gi'],
    ['512Mi', '512Mi'],
    ['1536Mi', '1536Mi'],
    ['4Gi', '4Gi'],
    ['1G', '1000000000'],
    ['2048Ki', '2Mi'],
    ['1000', '1000'],
    ['0', '0'],
    ['0.5', '0.5'],
    ['n/a', 'n/a'],
  ])('%s -> %s', (input, expected) => {
    expect(formatBytes(input)).toBe(expected);
  });
});
