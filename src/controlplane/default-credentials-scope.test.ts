import { describe, expect, it } from 'vitest';
import { defaultCredentialsScope } from './default-credentials-scope.ts';

describe('defaultCredentialsScope', () => {
  it.each<[string, string[], string, string, Record<string, string> | undefined, boolean]>([
    ['nothing set: every namespace (as before scoping)', [], '', 'team-b', undefined, true],
    ['listed', ['team-a', 'team-c'], '', 'team-a', undefined, true],
    ['not listed', ['team-a', 'team-c'], '', 'team-b', {}, false],
    [
      'selector matches',
      [],
      'agents.dev/default-credentials=true',
      'team-b',
      { 'agents.dev/default-credentials': 'true' },
      true,
    ],
    ['selector does not match', [], 'agents.dev/default-credentials=true', 'team-b', { other: 'x' }, false],
    ['selector, labels unknown', [], 'agents.dev/default-credentials=true', 'team-b', undefined, false],
    ['list or selector: listed', ['team-a'], 'tier=platform', 'team-a', {}, true],
    ['list or selector: labelled', ['team-a'], 'tier=platform', 'team-b', { tier: 'platform' }, true],
    ['list or selector: neither', ['team-a'], 'tier=platform', 'team-b', { tier: 'tenant' }, false],
  ])('%s', (_case, namespaces, namespaceSelector, namespace, labels, allowed) => {
    const scope = defaultCredentialsScope({ namespaces, namespaceSelector });
    expect(scope.decisionFor(namespace, labels).allowed).toBe(allowed);
  });

  it('says what to do, naming the namespace', () => {
    const decision = defaultCredentialsScope({ namespaces: ['team-a'], namespaceSelector: '' }).decisionFor(
      'team-b',
      undefined,
    );
    expect(decision).toMatchObject({ allowed: false });
    const message = (decision as { message: string }).message;
    expect(message).toContain('namespace team-b');
    expect(message).toContain('spec.credentialsSecretRef');
    expect(message).not.toContain('team-a');
  });

  it('reads namespaces only when a selector is set', () => {
    expect(defaultCredentialsScope({ namespaces: ['a'], namespaceSelector: '' }).selector).toBeUndefined();
    expect(defaultCredentialsScope({ namespaces: [], namespaceSelector: 'x=y' }).selector).toBeDefined();
  });
});
