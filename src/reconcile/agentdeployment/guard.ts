/**
 * The create guard (after crossplane-runtime's external-create-pending annotation), pure: an object with
 * no recorded id finds a live deployment of its name. It is this object's own only when the evidence
 * says so: a create was pending (status.createPendingSince, written before the POST), the deployment was
 * created at or after that time, and no other object claims it. Anything else is someone else's, or
 * unknown: the object writes nothing and says what to check. Never a guess.
 */
import { Annotation } from '../../api/names.ts';
import type { Deployment } from '../../controlplane/schemas.ts';

export type FoundVerdict =
  | { take: true; message: string }
  | { take: false; reason: 'NameConflict' | 'CreateUnconfirmed'; message: string };

export interface FoundInput {
  found: Pick<Deployment, 'id' | 'name' | 'created_at'>;
  /** status.createPendingSince, when a create was pending. */
  pendingSince: string | undefined;
  /** namespace/name of another object that records or adopts this id, if any. */
  claimedBy: string | undefined;
}

export function judgeFound({ found, pendingSince, claimedBy }: FoundInput): FoundVerdict {
  const adoptHint = `to manage it from this object, set the annotation ${Annotation.AdoptDeploymentId}: ${found.id}; otherwise choose another spec.name`;
  if (claimedBy) {
    return {
      take: false,
      reason: 'NameConflict',
      message: `a deployment named ${found.name} already exists (${found.id}) and ${claimedBy} manages it; nothing is sent. Choose another spec.name`,
    };
  }
  if (!pendingSince) {
    return {
      take: false,
      reason: 'NameConflict',
      message: `a deployment named ${found.name} already exists (${found.id}) and this object did not create it; nothing is sent. If it should be managed from here, ${adoptHint}`,
    };
  }
  const created = Date.parse(found.created_at);
  const pending = Date.parse(pendingSince);
  if (Number.isFinite(created) && Number.isFinite(pending) && created >= pending) {
    return {
      take: true,
      message: `found deployment ${found.id} named ${found.name}, created at ${found.created_at} by this object's create pending since ${pendingSince} whose answer was lost`,
    };
  }
  return {
    take: false,
    reason: 'CreateUnconfirmed',
    message: `a create of ${found.name} was pending since ${pendingSince} without an answer, and deployment ${found.id} of that name exists, but it was created at ${found.created_at}, before the create started, so it is not taken as this object's; nothing is sent. Check on the control plane who created ${found.id}: if this object did (clocks apart?), ${adoptHint}`,
  };
}
