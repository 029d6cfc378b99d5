import { describe, expect, it } from 'vitest';
import { parseJsonPath, selectJsonPath } from './json-path.ts';

const DOC = {
  errorRate: 0.01,
  data: [{ 'error rate': 2, "it's": 3 }, { value: null }],
  nested: { a: { b: 'deep' } },
  'x-y': true,
};

describe('jsonPath: the subset it reads', () => {
  const cases: [string, unknown][] = [
    ['{$.errorRate}', 0.01],
    ['$.errorRate', 0.01],
    ['{ $.nested.a.b }', 'deep'],
    ['{$}', DOC],
    ["{$.data[0]['error rate']}", 2],
    ['{$.data[0]["error rate"]}', 2],
    ["{$.data[0]['it\\'s']}", 3],
    ['{$.data[1].value}', null],
    ['{$.x-y}', true],
    ['{$.data[2]}', undefined],
    ['{$.missing.b}', undefined],
    ['{$.errorRate[0]}', undefined],
    ['{$.data.value}', undefined],
    ['{$.constructor}', undefined],
  ];
  it.each(cases)('%s', (path, value) => {
    const segments = parseJsonPath(path);
    if ('problem' in segments) throw new Error(segments.problem);
    expect(selectJsonPath(DOC, segments)).toEqual(value);
  });

  it.each([
    ['{.errorRate}', 'must start with $'],
    ['{$..errorRate}', 'not followed by a field name'],
    ['{$.data[*]}', 'supports only'],
    ['{$.data[?(@.x)]}', 'supports only'],
    ["{$['unterminated}", 'supports only'],
    ['{$.data[-1]}', 'supports only'],
  ])('refuses %s', (path, problem) => {
    const segments = parseJsonPath(path);
    expect('problem' in segments && segments.problem).toContain(problem);
  });
});
