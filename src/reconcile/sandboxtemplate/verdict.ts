/**
 * What the SandboxTemplate chain decides, one discriminant (`kind`). `read` does not end the program;
 * the others are final: what the controller records and reports (and the plan prints).
 */
import type { Reason } from '../../api/names.ts';
import type { Drift } from '../../api/sandboxtemplate.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/template-schemas.ts';
import type { TemplateFacts } from './facts.ts';

export type TemplateGateName =
  | 'paused'
  | 'defaultCredentialsScope'
  | 'credentialsSecret'
  | 'credentials'
  | 'templates'
  | 'resolve'
  | 'drift';

/** `credentialsSecret` and `templates` are the port's reads; `credentials` is derived. */
export type TemplateRead = 'credentialsSecret' | 'credentials' | 'templates';

export type TemplateVerdict = { gate: TemplateGateName } & (
  | { kind: 'read'; read: TemplateRead }
  | { kind: 'paused'; message: string }
  /** `unresolved`: no template (or no one template) of the name: status says nothing of a template. */
  | { kind: 'wait'; reason: Reason; message: string; unresolved?: true }
  | { kind: 'stall'; reason: Reason; message: string; unresolved?: true }
  /** The one template of the name, and how it differs from the spec (empty: in sync). */
  | { kind: 'found'; template: ListedTemplate; drift: Drift[] }
);

export type FinalTemplateVerdict = Exclude<TemplateVerdict, { kind: 'read' }>;

export type TemplateGate = (facts: TemplateFacts) => TemplateVerdict | undefined;
