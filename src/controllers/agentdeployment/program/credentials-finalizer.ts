/**
 * Puts the in-use finalizer on credentials Secrets and takes it off (credentials-in-use.ts decides
 * which), patching from the cached copy of the Secret.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { CREDENTIALS_IN_USE_FINALIZER } from '../../../api/names.ts';
import type { KubeAccess } from '../../../kube/access.ts';
import { ConflictError } from '../../../kube/errors.ts';
import { addFinalizer, removeFinalizer } from '../../../runtime/objects.ts';
import type { SecretCache } from '../../../runtime/secret-cache.ts';
import type { CachedAgentDeployment } from '../cache/projection.ts';
import type { AgentDeploymentDeps } from '../types.ts';
import { credentialsInUse, needsProtection, secretsToRelease } from './credentials-in-use.ts';

const secretsResource = { group: '', version: 'v1', plural: 'secrets' };

/** Patches a Secret's in-use finalizer from the cached copy; on a conflict, once more from a fresh read. */
async function patchCredentialsFinalizer(
  access: KubeAccess,
  change: typeof addFinalizer,
  secret: V1Secret,
  signal: AbortSignal,
): Promise<void> {
  const ref = {
    resource: secretsResource,
    namespace: secret.metadata?.namespace ?? '',
    name: secret.metadata?.name ?? '',
  };
  try {
    await change(access, ref, CREDENTIALS_IN_USE_FINALIZER, secret, signal);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    await change(access, ref, CREDENTIALS_IN_USE_FINALIZER, undefined, signal);
  }
}

/** The reconciler's two finalizer ports, over the Secrets cache and the cached objects of a namespace. */
export function credentialsFinalizer(
  access: KubeAccess,
  secrets: SecretCache,
  objectsOf: (namespace: string) => readonly CachedAgentDeployment[],
): Pick<AgentDeploymentDeps, 'protectCredentials' | 'releaseCredentials'> {
  return {
    protectCredentials: async (namespace, name, signal) => {
      const secret = secrets.get(namespace, name);
      if (needsProtection(secret)) await patchCredentialsFinalizer(access, addFinalizer, secret, signal);
    },
    releaseCredentials: async (namespace, exceptKey, signal) => {
      const held = secretsToRelease(secrets.list(namespace), new Set());
      if (held.length === 0) return; // the common case: no object of the namespace names its own
      const inUse = credentialsInUse(objectsOf(namespace), exceptKey);
      for (const secret of secretsToRelease(held, inUse)) {
        await patchCredentialsFinalizer(access, removeFinalizer, secret, signal);
      }
    },
  };
}
