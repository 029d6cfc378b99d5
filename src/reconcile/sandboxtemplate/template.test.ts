import { describe, expect, it } from 'vitest';
import type { SandboxTemplateSpec } from '../../api/sandboxtemplate.ts';
import type { SandboxTemplate } from '../../controlplane/template-schemas.ts';
import { describeDrift, type ObservedForDrift, templateDrift } from './drift.ts';
import { observedFacts } from './observed.ts';
import { resolveTemplate } from './resolve.ts';

const t = (name: string, id = name): SandboxTemplate => ({ id, name });

describe('resolveTemplate', () => {
  const listed = [t('py'), t('py-3.12'), t('PY-legacy'), t('dup', 'a'), t('dup', 'b')];
  it('picks the exact name among substring matches', () => {
    expect(resolveTemplate(listed, 'py')).toEqual({ kind: 'found', template: t('py') });
  });
  it('is case-sensitive about the exact name and lists near names', () => {
    expect(resolveTemplate(listed, 'Py')).toEqual({
      kind: 'notFound',
      similar: ['py', 'py-3.12', 'PY-legacy'],
    });
  });
  it('near names are platform text: cleaned before a condition quotes them', () => {
    const hostile = t('py\u001b[2J\nlevel=error msg="forged"');
    expect(resolveTemplate([hostile], 'py-x').kind).toBe('notFound');
    expect(resolveTemplate([hostile], 'py')).toEqual({
      kind: 'notFound',
      similar: ['py [2J level=error msg="forged"'],
    });
  });
  it('reports two exact matches instead of choosing', () => {
    expect(resolveTemplate(listed, 'dup')).toEqual({ kind: 'ambiguous', ids: ['a', 'b'] });
  });
});

describe('observedFacts', () => {
  it('converts quantities and keeps only header names', () => {
    const facts = observedFacts({
      id: 'id1',
      name: 'n',
      image: 'img',
      resources: { cpu: '1000m', memory: '1024Mi', storage: '4Gi' },
      volume_mounts: [{ volume_name: 'w', mount_path: '/w' }],
      proxy_config: {
        rules: [
          { name: 'r', match_hosts: ['h'], inject_headers: { Authorization: 'Bearer s3cr3t', 'X-B': 'v' } },
        ],
        no_proxy: ['localhost'],
      },
      registry_name: 'reg',
      registry_id: 'rid',
      created_at: 'c',
      updated_at: 'u',
    });
    expect(facts).toEqual({
      templateId: 'id1',
      registryName: 'reg',
      registryId: 'rid',
      createdAt: 'c',
      updatedAt: 'u',
      observed: {
        image: 'img',
        resources: { cpu: '1', memory: '1Gi', storage: '4Gi' },
        volumeMounts: [{ volumeName: 'w', mountPath: '/w' }],
        proxyRules: [
          {
            name: 'r',
            matchHosts: ['h'],
            matchPaths: undefined,
            enabled: undefined,
            injectedHeaderNames: ['Authorization', 'X-B'],
          },
        ],
        noProxy: ['localhost'],
      },
    });
    expect(JSON.stringify(facts)).not.toContain('s3cr3t');
  });
});

describe('templateDrift', () => {
  const observed: ObservedForDrift = {
    image: 'img:1',
    resources: { cpu: '500m', memory: '1Gi', storage: '2Gi' },
    volumeMounts: [
      { volumeName: 'a', mountPath: '/a' },
      { volumeName: 'b', mountPath: '/b' },
    ],
    proxyRules: [
      { name: 'gh', matchHosts: ['api.github.com'], enabled: true, injectedHeaderNames: ['Authorization'] },
    ],
    noProxy: ['localhost'],
    registryName: 'reg',
  };
  const spec = (s: Partial<SandboxTemplateSpec>): SandboxTemplateSpec => ({ templateName: 'x', ...s });

  it.each<[string, Partial<SandboxTemplateSpec>, string[]]>([
    ['nothing stated', {}, []],
    ['equal quantities in other notation', { resources: { cpu: '0.5', memory: '1024Mi' } }, []],
    ['integer cpu', { resources: { cpu: 1 } }, ['resources.cpu']],
    ['image', { image: 'img:2' }, ['image']],
    ['memory', { resources: { memory: '2Gi' } }, ['resources.memory']],
    [
      'mounts in another order',
      {
        volumeMounts: [
          { volumeName: 'b', mountPath: '/b' },
          { volumeName: 'a', mountPath: '/a' },
        ],
      },
      [],
    ],
    ['a missing mount', { volumeMounts: [{ volumeName: 'a', mountPath: '/a' }] }, ['volumeMounts']],
    ['header names ignore case', { proxyRules: [{ name: 'gh', injectHeaderNames: ['authorization'] }] }, []],
    [
      'a rule differs',
      { proxyRules: [{ name: 'gh', matchHosts: ['github.com'], enabled: false }] },
      ['proxyRules[gh].matchHosts', 'proxyRules[gh].enabled'],
    ],
    [
      'a rule is missing and one is extra',
      { proxyRules: [{ name: 'other' }] },
      ['proxyRules[other]', 'proxyRules[gh]'],
    ],
    ['noProxy', { noProxy: ['localhost', '127.0.0.1'] }, ['noProxy']],
    ['registry', { registryName: 'other' }, ['registryName']],
  ])('%s', (_, s, fields) => {
    expect(templateDrift(spec(s), observed).map((d) => d.field)).toEqual(fields);
  });

  it('states spec value against observed value', () => {
    expect(templateDrift(spec({ image: 'img:2', resources: { cpu: '1' } }), observed)).toEqual([
      { field: 'image', expected: 'img:2', observed: 'img:1' },
      { field: 'resources.cpu', expected: '1', observed: '500m' },
    ]);
  });

  it("describes the observed values cleaned: the platform's text never forges a line", () => {
    const drift = templateDrift(spec({ image: 'img:2' }), {
      ...observed,
      image: `img:1\u001b[31m\n${'x'.repeat(500)}`,
    });
    const text = describeDrift(drift);
    expect(text).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(text.startsWith('image: spec img:2, observed img:1 [31m xxx')).toBe(true);
    expect(text.length).toBeLessThan(260);
  });
});
