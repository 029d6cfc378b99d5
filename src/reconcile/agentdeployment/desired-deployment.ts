/**
 * What an AgentDeployment asks of the control plane: the create request its spec and Secrets resolve to,
 * and the digests a decision compares with what status says was applied (the secrets keyed per object,
 * the fields the platform does not echo). The controller's resolve step and the plan both call this.
 */
import type { AgentDeployment } from '../../api/agentdeployment.ts';
import type { DeploymentCreateRequest } from '../../controlplane/schemas.ts';
import { toCreateRequest } from '../../translate/request.ts';
import {
  objectSecretsKey,
  plainDigest,
  resolveSecrets,
  type SecretLookup,
  secretsDigest,
} from '../../translate/secrets.ts';

/** Digests of what was applied: the secrets (keyed per object) and the fields the platform does not echo. */
export interface AppliedDigests {
  secrets: string;
  unechoed: string;
}

export type DesiredDeployment =
  | { ok: true; request: DeploymentCreateRequest; digests: AppliedDigests }
  | { ok: false; message: string };

/** `digestKey`: the controller's secrets-digest key (it keys the digest per object uid). */
export function desiredDeployment(
  obj: Pick<AgentDeployment, 'metadata' | 'spec'>,
  lookup: SecretLookup,
  digestKey: string,
): DesiredDeployment {
  const resolved = resolveSecrets(obj.spec, lookup);
  if (!resolved.ok) {
    const parts = [
      ...(resolved.missing.length ? [`missing ${resolved.missing.join(', ')}`] : []),
      ...resolved.invalid,
    ];
    return { ok: false, message: `secrets cannot be resolved: ${parts.join('; ')}` };
  }
  const request = toCreateRequest(obj.spec, obj.spec.name ?? obj.metadata.name, resolved.secrets);
  return {
    ok: true,
    request,
    digests: {
      secrets: secretsDigest(
        objectSecretsKey(digestKey, obj.metadata.uid ?? obj.metadata.name),
        resolved.secrets,
      ),
      unechoed: plainDigest([request.source_config.install_command, request.source_config.build_command]),
    },
  };
}
