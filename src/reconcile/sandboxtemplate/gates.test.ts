/** The SandboxTemplate chain, gate by gate: each row the facts so far and the verdict they give. */
import { describe, expect, it } from 'vitest';
import { Annotation } from '../../api/names.ts';
import type { SandboxTemplateSpec } from '../../api/sandboxtemplate.ts';
import { controlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import type { SandboxTemplate } from '../../controlplane/template-schemas.ts';
import { credentialsFact } from '../credentials.ts';
import type { TemplateFacts } from './facts.ts';
import { decideTemplate } from './program.ts';

const BASE_URL = 'https://cp.example.com';
const policy = credentialsPolicy({ baseUrl: BASE_URL, apiKey: 'k' }, controlPlaneAllowList('', BASE_URL));
const t = (name: string, id = name, image?: string): SandboxTemplate => ({
  id,
  name,
  ...(image ? { image } : {}),
});

function facts(over: {
  spec?: Partial<SandboxTemplateSpec>;
  annotations?: Record<string, string>;
  allowed?: boolean;
  secret?: Record<string, string> | null;
  templates?: SandboxTemplate[];
}): TemplateFacts {
  const spec = { templateName: 'py', ...over.spec } as SandboxTemplateSpec;
  const f: TemplateFacts = {
    object: { metadata: { name: 't', namespace: 'team-a', annotations: over.annotations ?? {} }, spec },
    settings: {
      defaultCredentialsScope:
        over.allowed === false ? { allowed: false, message: 'not this namespace' } : { allowed: true },
      credentialsPolicy: policy,
    },
  };
  if (over.secret !== undefined) f.credentialsSecret = { data: over.secret ?? undefined };
  if (over.secret !== undefined || !spec.credentialsSecretRef)
    f.credentials = credentialsFact(spec.credentialsSecretRef, () => f.credentialsSecret?.data, policy);
  if (over.templates) f.templates = over.templates;
  return f;
}

describe('SandboxTemplate gates, in order', () => {
  it.each<[string, Parameters<typeof facts>[0], object]>([
    ['paused', { annotations: { [Annotation.Paused]: 'true' } }, { gate: 'paused', kind: 'paused' }],
    [
      'default credentials not allowed',
      { allowed: false },
      { gate: 'defaultCredentialsScope', kind: 'stall' },
    ],
    [
      'its own credentials: read the Secret',
      { spec: { credentialsSecretRef: { name: 'c' } } },
      { kind: 'read', read: 'credentialsSecret' },
    ],
    [
      'the Secret missing: waiting',
      { spec: { credentialsSecretRef: { name: 'c' } }, secret: null },
      { gate: 'credentials', kind: 'wait', reason: 'WaitingForCredentials' },
    ],
    ['credentials, no listing yet: list', {}, { gate: 'templates', kind: 'read', read: 'templates' }],
    [
      'no template of the name: waiting',
      { templates: [t('py-3')] },
      { gate: 'resolve', kind: 'wait', reason: 'NotFound', unresolved: true },
    ],
    [
      'two of the name: stalled',
      { templates: [t('py', 'a'), t('py', 'b')] },
      { gate: 'resolve', kind: 'stall', reason: 'Ambiguous' },
    ],
    ['one, in sync', { templates: [t('py')] }, { gate: 'drift', kind: 'found', drift: [] }],
    [
      'one, another image: its drift',
      { spec: { image: 'python:3.12' }, templates: [t('py', 'py', 'python:3.11')] },
      {
        gate: 'drift',
        kind: 'found',
        drift: [{ field: 'image', expected: 'python:3.12', observed: 'python:3.11' }],
      },
    ],
  ])('%s', (_, over, expected) => {
    expect(decideTemplate(facts(over))).toMatchObject(expected);
  });
});
