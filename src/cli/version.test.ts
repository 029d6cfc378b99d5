import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_VERSION, formatVersions } from './version.ts';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  version: string;
};

const crds = {
  ok: true as const,
  value: [
    { name: 'agentdeployments.deploy.agents.dev', served: ['v1alpha1'], storage: 'v1alpha1' },
    { name: 'sandboxtemplates.deploy.agents.dev', served: ['v1beta1'], storage: 'v1beta1' },
  ],
};

describe('formatVersions', () => {
  const client = `kubectl-agd ${pkg.version} (speaks deploy.agents.dev/v1alpha1, Node.js ${process.versions.node})`;

  it("the client's version is package.json's", () => {
    expect(CLIENT_VERSION).toBe(pkg.version);
    expect(formatVersions(undefined)).toBe(`${client}\n`);
  });

  it.each<[string, string | undefined, string]>([
    ['the same version', pkg.version, `controller: ${pkg.version} (ops/agent-deployment-operator)`],
    [
      'another version',
      '0.0.1',
      'controller: 0.0.1 (ops/agent-deployment-operator) (differs from this plugin)',
    ],
    [
      'no version published',
      undefined,
      'controller: unknown (it publishes no version: older than 0.2) (ops/agent-deployment-operator)',
    ],
  ])('the controller: %s, and the CRDs', (_case, version, line) => {
    const text = formatVersions({
      server: 'https://k:6443',
      namespace: 'ops',
      controller: { ok: true, value: { deployment: 'ops/agent-deployment-operator', version } },
      crds,
    });
    expect(text.split('\n')).toEqual([
      client,
      'cluster: https://k:6443',
      line,
      'CRD agentdeployments.deploy.agents.dev: serves v1alpha1, stores v1alpha1',
      'CRD sandboxtemplates.deploy.agents.dev: serves v1beta1, stores v1beta1 (does not serve v1alpha1, the version this plugin speaks)',
      '',
    ]);
  });

  it('a read that failed is said, and the others still are', () => {
    const text = formatVersions({
      server: 'https://k:6443',
      namespace: 'ops',
      controller: { ok: false, reason: 'forbidden' },
      crds: { ok: true, value: [] },
    });
    expect(text).toContain('controller: unknown (forbidden)');
    expect(formatVersions({ unreachable: 'no kubeconfig' })).toBe(`${client}\ncluster: no kubeconfig\n`);
  });

  // Issue 52, hole 4: whatever the cluster says reaches the terminal cleaned: no escape sequence, no
  // line break that could forge another line.
  it('hole 4: every string from the cluster is printed cleaned', () => {
    const hostile = '\u001b]0;owned\u0007\u001b[2J\nkubectl-agd 9.9.9';
    const text = formatVersions({
      server: 'https://k:6443',
      namespace: 'ops',
      controller: { ok: false, reason: `denied${hostile}` },
      crds: {
        ok: true,
        value: [{ name: 'agentdeployments.deploy.agents.dev', served: [`v1${hostile}`], storage: hostile }],
      },
    });
    expect(text.replace(/\n/g, '')).not.toMatch(/\p{Cc}/u);
    expect(text.split('\n')).toHaveLength(5);
    expect(text).toContain('controller: unknown (denied ]0;owned [2J kubectl-agd 9.9.9)');
  });
});
