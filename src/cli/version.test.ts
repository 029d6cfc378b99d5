import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_VERSION, formatVersions, imageTag } from './version.ts';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  version: string;
};

describe('imageTag', () => {
  it.each<[string, string | undefined]>([
    ['agent-deployment-operator:0.1.0', '0.1.0'],
    ['registry.example.com:5000/team/agent-deployment-operator:1.2.3', '1.2.3'],
    ['registry.example.com:5000/agent-deployment-operator', undefined],
    ['agent-deployment-operator:0.2.0@sha256:abc', '0.2.0'],
    ['agent-deployment-operator@sha256:abc', undefined],
  ])('%s', (image, tag) => {
    expect(imageTag(image)).toBe(tag);
  });
});

describe('formatVersions', () => {
  const client = `kubectl-agd ${pkg.version} (speaks deploy.agents.dev/v1alpha1, Node.js ${process.versions.node})`;

  it("the client's version is package.json's", () => {
    expect(CLIENT_VERSION).toBe(pkg.version);
    expect(formatVersions(undefined)).toBe(`${client}\n`);
  });

  it('the controller and the CRDs, and what differs from the plugin', () => {
    const text = formatVersions({
      server: 'https://k:6443',
      controllers: {
        ok: true,
        value: [
          { deployment: 'ops/agent-deployment-operator', version: pkg.version },
          { deployment: 'old/agent-deployment-operator', version: '0.0.1' },
          { deployment: 'pinned/agent-deployment-operator', version: undefined },
        ],
      },
      crds: {
        ok: true,
        value: [
          { name: 'agentdeployments.deploy.agents.dev', served: ['v1alpha1'], storage: 'v1alpha1' },
          { name: 'sandboxtemplates.deploy.agents.dev', served: ['v1beta1'], storage: 'v1beta1' },
        ],
      },
    });
    expect(text.split('\n')).toEqual([
      client,
      'cluster: https://k:6443',
      `controller: ${pkg.version} (ops/agent-deployment-operator)`,
      'controller: 0.0.1 (old/agent-deployment-operator) (differs from this plugin)',
      'controller: unknown (no version label, image by digest) (pinned/agent-deployment-operator)',
      'CRD agentdeployments.deploy.agents.dev: serves v1alpha1, stores v1alpha1',
      'CRD sandboxtemplates.deploy.agents.dev: serves v1beta1, stores v1beta1 (does not serve v1alpha1, the version this plugin speaks)',
      '',
    ]);
  });

  it('a read that failed is said, and the others still are', () => {
    const text = formatVersions({
      server: 'https://k:6443',
      controllers: { ok: false, reason: 'forbidden' },
      crds: { ok: true, value: [] },
    });
    expect(text).toContain('controller: unknown (forbidden)');
    expect(formatVersions({ unreachable: 'no kubeconfig' })).toBe(`${client}\ncluster: no kubeconfig\n`);
  });
});
