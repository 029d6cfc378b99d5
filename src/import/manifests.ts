/**
 * The manifests one deployment imports as: an AgentDeployment that adopts it by id, in the target
 * namespace, and, when it has secrets, a Secret the AgentDeployment takes them from (`secretsFrom`).
 * Secret values are written as the platform shows them; a value it masks becomes a placeholder, named so
 * the YAML can say which ones a person must fill in.
 */
import { AGENT_DEPLOYMENT, API_VERSION } from '../api/group.ts';
import { Annotation } from '../api/names.ts';
import type { Deployment, Secret } from '../controlplane/schemas.ts';
import { isMaskedSecretValue } from '../translate/drift.ts';
import { fromDeployment, type ImportedSpec } from './reverse.ts';

export const PLACEHOLDER_PREFIX = 'REPLACE_ME_';

/** What the platform masks is written as this placeholder, so nothing is guessed. */
export const placeholderFor = (secretName: string) => `${PLACEHOLDER_PREFIX}${secretName}`;

export interface ImportedAgentDeployment {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; annotations: Record<string, string> };
  spec: ImportedSpec & { name?: string; secretsFrom?: { secretRef: { name: string } }[] };
}

export interface ImportedSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string };
  type: 'Opaque';
  stringData: Record<string, string>;
}

export interface Imported {
  deployment: Deployment;
  agentDeployment: ImportedAgentDeployment;
  secret: ImportedSecret | undefined;
  /** Secret names whose value the platform masked: their value in `secret` is a placeholder. */
  masked: string[];
  /** Secret names whose value the platform revealed: `secret` holds the value. */
  revealed: string[];
}

/**
 * A Kubernetes object name for a deployment name: lowercase letters, digits and '-', starting and ending
 * with a letter or digit. Empty when nothing of the name fits (the caller reports it).
 */
export function objectNameFor(deploymentName: string): string {
  return deploymentName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 240)
    .replace(/^-+|-+$/g, '');
}

export const secretNameFor = (objectName: string) => `${objectName}-secrets`;

export function importDeployment(d: Deployment, namespace: string): Imported {
  const name = objectNameFor(d.name);
  const masked = d.secrets.filter((s) => isMaskedSecretValue(s.value)).map((s) => s.name);
  const revealed = d.secrets.filter((s) => !isMaskedSecretValue(s.value)).map((s) => s.name);
  const values: Secret[] = d.secrets.map((s) => ({
    name: s.name,
    value: isMaskedSecretValue(s.value) ? placeholderFor(s.name) : s.value,
  }));
  const secret: ImportedSecret | undefined =
    values.length === 0
      ? undefined
      : {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: secretNameFor(name), namespace },
          type: 'Opaque',
          stringData: Object.fromEntries(values.map((s) => [s.name, s.value])),
        };
  return {
    deployment: d,
    agentDeployment: {
      apiVersion: API_VERSION,
      kind: AGENT_DEPLOYMENT.kind,
      metadata: { name, namespace, annotations: { [Annotation.AdoptDeploymentId]: d.id } },
      spec: {
        // spec.name only when the object's name cannot be the deployment's.
        ...(name === d.name ? {} : { name: d.name }),
        ...fromDeployment(d),
        ...(secret ? { secretsFrom: [{ secretRef: { name: secret.metadata.name } }] } : {}),
      },
    },
    secret,
    masked,
    revealed,
  };
}
