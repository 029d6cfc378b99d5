import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec } from '../api/agentdeployment.ts';
import { referencedSecretNames, resolveSecrets, secretsDigest } from './secrets.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const store: Record<string, Record<string, string>> = {
  llm: { OPENAI_API_KEY: b64('sk-1'), ANTHROPIC_API_KEY: b64('sk-2') },
  db: { url: b64('postgres://x'), 'bad-key': b64('v') },
};
const lookup = (name: string) => store[name];

const spec = (extra: Partial<AgentDeploymentSpec>): AgentDeploymentSpec => ({
  source: 'external_image',
  deletionPolicy: 'Delete',
  progressDeadline: '30m',
  ...extra,
});

describe('resolveSecrets', () => {
  it.each<[string, Partial<AgentDeploymentSpec>, ReturnType<typeof resolveSecrets>]>([
    ['no secrets', {}, { ok: true, secrets: [] }],
    [
      'literal value',
      { secrets: [{ name: 'A', value: 'x' }] },
      { ok: true, secrets: [{ name: 'A', value: 'x' }] },
    ],
    [
      'valueFrom a Secret key',
      { secrets: [{ name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }] },
      { ok: true, secrets: [{ name: 'DB_URL', value: 'postgres://x' }] },
    ],
    [
      'secretsFrom with prefix, sorted; explicit item wins',
      {
        secretsFrom: [{ secretRef: { name: 'llm' }, prefix: 'X_' }],
        secrets: [{ name: 'X_OPENAI_API_KEY', value: 'override' }],
      },
      {
        ok: true,
        secrets: [
          { name: 'X_ANTHROPIC_API_KEY', value: 'sk-2' },
          { name: 'X_OPENAI_API_KEY', value: 'override' },
        ],
      },
    ],
    [
      'missing Secret and missing key are named',
      {
        secrets: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'absent' } } },
        ],
      },
      { ok: false, missing: ['Secret nope', 'key absent in Secret db'], invalid: [] },
    ],
    [
      'a key that is not a C identifier is refused by name',
      { secretsFrom: [{ secretRef: { name: 'db' } }] },
      { ok: false, missing: [], invalid: ['Secret db key bad-key gives "bad-key", not a C identifier'] },
    ],
  ])('%s', (_name, extra, expected) => {
    expect(resolveSecrets(spec(extra), lookup)).toEqual(expected);
  });

  it('never puts a value into a problem report', () => {
    const result = resolveSecrets(spec({ secretsFrom: [{ secretRef: { name: 'db' } }] }), lookup);
    expect(JSON.stringify(result)).not.toContain('postgres://x');
  });
});

describe('secretsDigest', () => {
  const secrets = [
    { name: 'A', value: 'one' },
    { name: 'B', value: 'two' },
  ];
  it('is stable and independent of order', () => {
    expect(secretsDigest('k', secrets)).toBe(secretsDigest('k', [...secrets].reverse()));
  });
  it.each<[string, string, { name: string; value: string }[]]>([
    ['another key', 'k2', secrets],
    [
      'a rotated value',
      'k',
      [
        { name: 'A', value: 'one' },
        { name: 'B', value: 'three' },
      ],
    ],
    [
      'a renamed secret',
      'k',
      [
        { name: 'A', value: 'one' },
        { name: 'C', value: 'two' },
      ],
    ],
    [
      'shifted boundaries',
      'k',
      [
        { name: 'A', value: 'oneB' },
        { name: 'B', value: 'two' },
      ],
    ],
  ])('changes with %s', (_name, key, other) => {
    expect(secretsDigest(key, other)).not.toBe(secretsDigest('k', secrets));
  });
  it('contains no value', () => {
    expect(secretsDigest('k', secrets)).toMatch(/^hmac-sha256:[0-9a-f]{32}$/);
  });
});

describe('referencedSecretNames', () => {
  it('lists every Secret the spec reads, once', () => {
    expect(
      referencedSecretNames(
        spec({
          secrets: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } }],
          secretsFrom: [{ secretRef: { name: 'llm' } }, { secretRef: { name: 'db' } }],
          credentialsSecretRef: { name: 'creds' },
        }),
      ),
    ).toEqual(['creds', 'db', 'llm']);
  });
});
