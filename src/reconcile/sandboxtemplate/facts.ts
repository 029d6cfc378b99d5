/**
 * The facts one SandboxTemplate pass decides on: the object, the controller's settings that change a
 * verdict, and what has been read so far (the credentials Secret, the credentials derived from it, the
 * templates the credentials reach).
 */
import type { SandboxTemplateSpec } from '../../api/sandboxtemplate.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/template-schemas.ts';
import type { CredentialsFact, VerdictSettings } from '../agentdeployment/facts.ts';

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
