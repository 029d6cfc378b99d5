/**
 * Which platform values a plan prints. A plan in CI runs with the controller's key, which reads every
 * deployment of the tenant, and its output lands in a pull-request comment: a `from` value (what the
 * platform holds, e.g. a sidecar's env value) is printed only when the plan can tell the reader could
 * read it anyway:
 * - the object's own credentials (spec.credentialsSecretRef): whoever holds that Secret reads the
 *   deployment with it;
 * - the controller's credentials: the deployment is the one this object's stored status records (the
 *   controller manages it for this namespace) and the plan's own Kubernetes access may get Secrets in
 *   the object's namespace (values of that namespace's deployment are no more secret than its Secrets);
 * - or the person running the plan said every reader may see them (--show-values).
 * Otherwise each such value is printed as HIDDEN, and a note says why. Values the object's own spec
 * states (`to`) are the reader's own input and always printed; secret values never are.
 */
import type { FieldChange, PlanWorld } from './model.ts';

export const HIDDEN = '(hidden)';

export const HIDDEN_NOTE =
  "platform values shown as (hidden): this plan cannot tell its readers may read them (the controller's credentials, and either the deployment is not the one this object records or this plan's Kubernetes access may not get Secrets in the namespace); give --show-values if every reader may";

export interface ValueFacts {
  namespace: string;
  /** The object names its own credentials Secret. */
  ownCredentials: boolean;
  /** The deployment id the object's stored status records. */
  recordedId: string | undefined;
  /** The deployment whose values would be printed. */
  observedId: string | undefined;
}

export async function platformValuesShown(world: PlanWorld, facts: ValueFacts): Promise<boolean> {
  if (world.showValues || facts.ownCredentials) return true;
  if (!world.kube || facts.observedId === undefined || facts.recordedId !== facts.observedId) return false;
  return world.kube.maySeeSecrets(facts.namespace);
}

/** The changes as printed: the platform's values hidden unless shown. */
export function shownChanges(changes: FieldChange[], shown: boolean, notes: string[]): FieldChange[] {
  if (shown || changes.length === 0) return changes;
  notes.push(HIDDEN_NOTE);
  // The secrets row carries names only (never values): kept.
  return changes.map((c) => (c.field === 'secrets' ? c : { ...c, from: HIDDEN }));
}
