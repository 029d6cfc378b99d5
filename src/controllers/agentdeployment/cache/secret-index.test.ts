import { describe, expect, it } from 'vitest';
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { SecretIndex } from './secret-index.ts';

const agd = (name: string, secret: string) =>
  ({
    metadata: { name, namespace: 'ns' },
    spec: {
      source: 'external_image',
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: secret, key: 'token' } } }],
    },
  }) as unknown as AgentDeployment;

describe('SecretIndex', () => {
  it('drops a Secret once its last reader goes', () => {
    const index = new SecretIndex({ firstReader: () => {}, lastReaderGone: () => {} });
    index.set(agd('a', 's1'));
    index.set(agd('b', 's1'));
    expect(index.readersOf('ns/s1').sort()).toEqual(['ns/a', 'ns/b']);
    index.delete('ns/a');
    expect(index.size).toBe(1);
    index.delete('ns/b');
    expect(index.size).toBe(0);
    // A reader that moves to another Secret leaves nothing behind either.
    index.set(agd('c', 's2'));
    index.set(agd('c', 's3'));
    expect(index.readersOf('ns/s2')).toEqual([]);
    expect(index.size).toBe(1);
  });

  it('an update that reads the same Secrets changes nothing and tells nothing', () => {
    const told: string[] = [];
    const index = new SecretIndex({
      firstReader: (s) => told.push(`first ${s}`),
      lastReaderGone: (s) => told.push(`gone ${s}`),
    });
    index.set(agd('a', 's1'));
    index.set(agd('a', 's1'));
    index.set(agd('a', 's1'));
    expect(told).toEqual(['first ns/s1']);
    expect(index.readersOf('ns/s1')).toEqual(['ns/a']);
  });

  it('objects that read the same one Secret share its list; one that reads two holds its own', () => {
    const index = new SecretIndex({ firstReader: () => {}, lastReaderGone: () => {} });
    index.set(agd('a', 's1'));
    index.set(agd('b', 's1'));
    const both = {
      ...agd('c', 's1'),
      spec: {
        source: 'external_image',
        secretsFrom: [{ secretRef: { name: 's1' } }, { secretRef: { name: 's2' } }],
      },
    } as unknown as AgentDeployment;
    index.set(both);
    expect(index.secretsReadBy('ns/a')).toEqual(['ns/s1']);
    expect(index.secretsReadBy('ns/b')).toBe(index.secretsReadBy('ns/a'));
    expect(index.secretsReadBy('ns/c')).toEqual(['ns/s1', 'ns/s2']);
    // A reader that moves to another Secret leaves the shared list as it was.
    index.set(agd('a', 's3'));
    expect(index.secretsReadBy('ns/b')).toEqual(['ns/s1']);
    expect(index.readersOf('ns/s1').sort()).toEqual(['ns/b', 'ns/c']);
  });
});
