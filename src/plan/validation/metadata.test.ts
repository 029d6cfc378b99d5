import { describe, expect, it } from 'vitest';
import { formatFieldError } from './field-error.ts';
import { type Metadata, metadataErrors } from './metadata.ts';

// The wording is the API server's (checked against it by test/plan-validation-agreement.test.ts).
describe('metadata, as the API server checks it on a create', () => {
  it.each<[string, Metadata, string[]]>([
    [
      'a valid name, labels and annotations',
      {
        name: 'agent.v2',
        labels: { 'app.kubernetes.io/name': 'a', tier: '' },
        annotations: { 'Example.COM/Note': 'x' },
      },
      [],
    ],
    [
      'a name that is no DNS subdomain',
      { name: 'Bad_Name' },
      ['metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain'],
    ],
    ['a name over 253 characters', { name: 'a'.repeat(254) }, ['metadata.name: Invalid value: "aaa']],
    [
      'a label key with two slashes',
      { name: 'a', labels: { 'a/b/c': 'x' } },
      ['metadata.labels: Invalid value: "a/b/c": a valid label key must consist'],
    ],
    [
      'a label key with an empty prefix',
      { name: 'a', labels: { '/b': 'x' } },
      ['metadata.labels: Invalid value: "/b": prefix part must be non-empty'],
    ],
    [
      'a label key name over 63 bytes',
      { name: 'a', labels: { ['é'.repeat(32)]: 'x' } },
      ['name part must be no more than 63 bytes', 'name part must consist'],
    ],
    [
      'a label value over 63 bytes',
      { name: 'a', labels: { t: 'v'.repeat(64) } },
      ['metadata.labels: Invalid value: "vvv'],
    ],
    [
      'a label value ending in a dash',
      { name: 'a', labels: { t: 'x-' } },
      ['metadata.labels: Invalid value: "x-": a valid label must be an empty string'],
    ],
    [
      'an annotation key with a space',
      { name: 'a', annotations: { 'a b': 'x' } },
      ['metadata.annotations: Invalid value: "a b": name part must consist'],
    ],
    [
      'annotations over 256 KiB',
      { name: 'a', annotations: { a: 'x'.repeat(256 * 1024) } },
      ['metadata.annotations: Too long: may not be more than 262144 bytes'],
    ],
  ])('%s', (_, metadata, expected) => {
    const found = metadataErrors(metadata).map(formatFieldError);
    expect(found).toHaveLength(expected.length);
    expected.forEach((text, i) => {
      expect(found[i]).toContain(text);
    });
  });
});
