import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { AgentDeployment } from './agentdeployment.ts';
import { AGENT_DEPLOYMENT, API_VERSION, SANDBOX_TEMPLATE } from './group.ts';
import { SandboxTemplate } from './sandboxtemplate.ts';

type Doc = { kind: string; apiVersion: string; spec: Record<string, unknown> };

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const docs = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) =>
    (yaml.loadAll(readFileSync(join(EXAMPLES, f), 'utf8')) as Doc[]).map(
      (doc) => [`${f}: ${doc.kind}`, doc] as const,
    ),
  )
  .filter(([, doc]) => doc.apiVersion === API_VERSION);

// The controller parses objects with these schemas: what the CRD admits, zod must read.
describe('the zod schemas read every example', () => {
  it.each(docs)('%s', (_name, doc) => {
    const schema =
      doc.kind === AGENT_DEPLOYMENT.kind
        ? AgentDeployment
        : doc.kind === SANDBOX_TEMPLATE.kind
          ? SandboxTemplate
          : undefined;
    expect(schema, `kind ${doc.kind}`).toBeDefined();
    const parsed = schema?.safeParse(doc);
    expect(parsed?.error).toBeUndefined();
  });

  it('defaults deletionPolicy to Delete', () => {
    const doc = docs.find(([, d]) => d.kind === AGENT_DEPLOYMENT.kind)?.[1];
    expect(doc).toBeDefined();
    const { deletionPolicy: _, ...spec } = doc?.spec ?? {};
    expect(AgentDeployment.parse({ ...doc, spec }).spec.deletionPolicy).toBe('Delete');
  });
});
