/**
 * The SandboxTemplate program, the AgentDeployment's design (DEVELOPMENT.md, "One program"): the facts
 * a pass reads, one chain of named pure gates (gates.ts) with one verdict type, and the one loop that
 * gathers what a gate asks for. The controller acts on the verdict (records what it observed, reports
 * drift); `kubectl agd plan` prints it. A template is only observed: no verdict writes anything.
 */

import type { Reason } from '../../api/names.ts';
import type { Drift, SandboxTemplateSpec } from '../../api/sandboxtemplate.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/template-schemas.ts';
import type { CredentialsFact, VerdictSettings } from '../agentdeployment/facts.ts';
import { credentialsFact } from '../credentials.ts';
import { TEMPLATE_GATES, type TemplateGate } from './gates.ts';

export interface TemplateFacts {
  object: {
    metadata: {
      name: string;
      namespace?: string | undefined;
      annotations?: Record<string, string> | undefined;
    };
    spec: SandboxTemplateSpec;
  };
  settings: Pick<VerdictSettings, 'defaultCredentialsScope' | 'credentialsPolicy'>;
  /** The credentials Secret the object names, as read (undefined: it names none, or none there). */
  credentialsSecret?: { data: Record<string, string> | undefined };
  credentials?: CredentialsFact;
  /** Every template the credentials reach (one listing, shared per credential by the controller). */
  templates?: readonly ListedTemplate[];
}

export type TemplateGateName =
  | 'paused'
  | 'defaultCredentialsScope'
  | 'credentials'
  | 'templates'
  | 'resolve'
  | 'drift';

export type TemplateVerdict = { gate: TemplateGateName } & (
  | { kind: 'read'; read: 'credentialsSecret' | 'credentials' | 'templates' }
  | { kind: 'paused'; message: string }
  /** `unresolved`: no template (or no one template) of the name: status says nothing of a template. */
  | { kind: 'wait'; reason: Reason; message: string; unresolved?: true }
  | { kind: 'stall'; reason: Reason; message: string; unresolved?: true }
  /** The one template of the name, and how it differs from the spec (empty: in sync). */
  | { kind: 'found'; template: ListedTemplate; drift: Drift[] }
);

export type FinalTemplateVerdict = Exclude<TemplateVerdict, { kind: 'read' }>;

export interface TemplatePort {
  /** Reads the credentials Secret, or lists the templates, into the facts. */
  read(read: 'credentialsSecret' | 'templates', facts: TemplateFacts): Promise<void>;
}

export function decideTemplate(
  facts: TemplateFacts,
  gates: readonly (readonly [TemplateGateName, TemplateGate])[] = TEMPLATE_GATES,
): TemplateVerdict {
  for (const [, gate] of gates) {
    const verdict = gate(facts);
    if (verdict) return verdict;
  }
  throw new Error('no gate decided: the chain must end with one that always does');
}

export async function runTemplate(facts: TemplateFacts, port: TemplatePort): Promise<FinalTemplateVerdict> {
  for (;;) {
    const verdict = decideTemplate(facts);
    if (verdict.kind !== 'read') return verdict;
    if (verdict.read === 'credentials') {
      const data = facts.credentialsSecret?.data;
      facts.credentials = credentialsFact(
        facts.object.spec.credentialsSecretRef,
        () => data,
        facts.settings.credentialsPolicy,
      );
    } else await port.read(verdict.read, facts);
  }
}
