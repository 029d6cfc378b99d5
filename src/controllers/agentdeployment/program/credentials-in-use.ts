/**
 * Which credentials Secrets hold the in-use finalizer and which may let go of it (pure). A credentials
 * Secret (spec.credentialsSecretRef) must outlive every object of its namespace that may still call the
 * control plane with it: deleting a namespace deletes the Secret and the objects together, and an object
 * whose deletion policy is Delete needs the credentials to delete its deployment. The Secret keeps
 * CREDENTIALS_IN_USE_FINALIZER while such an object exists.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { ObjectMeta } from '../../../api/common.ts';
import { CREDENTIALS_IN_USE_FINALIZER, FINALIZER } from '../../../api/names.ts';
import { objectKey } from '../../../runtime/keys.ts';

/** What is read of an object (a projection of another replica's object holds it: projection.ts). */
interface CredentialsUser {
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'finalizers'> & { [field: string]: unknown };
  spec: { credentialsSecretRef?: { name: string } | undefined };
}

/** Whether an object may still call the control plane: not deleted, or deleted with its finalizer on. */
function mayStillCall(obj: CredentialsUser): boolean {
  return !obj.metadata.deletionTimestamp || (obj.metadata.finalizers?.includes(FINALIZER) ?? false);
}

/** The credentials Secret names objects of the namespace still need, leaving out the object `exceptKey`. */
export function credentialsInUse(objects: readonly CredentialsUser[], exceptKey?: string): Set<string> {
  const names = new Set<string>();
  for (const obj of objects) {
    const ref = obj.spec.credentialsSecretRef?.name;
    if (ref && objectKey(obj) !== exceptKey && mayStillCall(obj)) names.add(ref);
  }
  return names;
}

/** Whether the in-use finalizer should be put on this Secret (an object needs it and it can still be added). */
export function needsProtection(secret: V1Secret | undefined): secret is V1Secret {
  if (!secret) return false;
  // A Secret already being deleted cannot take a new finalizer; it is gone soon either way.
  if (secret.metadata?.deletionTimestamp) return false;
  return !(secret.metadata?.finalizers ?? []).includes(CREDENTIALS_IN_USE_FINALIZER);
}

/** The Secrets of one namespace that carry the finalizer while no object needs them any more. */
export function secretsToRelease(secrets: readonly V1Secret[], inUse: ReadonlySet<string>): V1Secret[] {
  return secrets.filter(
    (s) =>
      (s.metadata?.finalizers ?? []).includes(CREDENTIALS_IN_USE_FINALIZER) &&
      !inUse.has(s.metadata?.name ?? ''),
  );
}
