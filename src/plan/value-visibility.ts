/**
 * Which platform values a plan prints. A plan in CI runs with the controller's key, which reads every
 * deployment of the tenant, and its output lands in a pull-request comment or a CI log: whoever reads
 * it is not the CI user who ran it. A `from` value (what the platform holds, e.g. a sidecar's env value)
 * is printed only when the plan can tell that reader could read it anyway:
 * - the object's namespace is one whose values the plan's readers may see (--show-values-in; default the
 *   plan's namespace, the one objects naming none go to): an input that names another team's namespace
 *   never prints that namespace's values, whatever the CI user may read there;
 * - and the object names its own credentials (spec.credentialsSecretRef: whoever holds that Secret reads
 *   the deployment with it), or, with the controller's credentials, the deployment is the one this
 *   object's stored status records (the controller manages it for this namespace) and the plan's own
 *   Kubernetes access may get Secrets in the object's namespace (values of that namespace's deployment
 *   are no more secret than its Secrets);
 * - or the person running the plan said every reader may see every value (--show-values).
 * Otherwise each such value is printed as HIDDEN, and a note says why. Values the object's own spec
 * states (`to`) are the reader's own input and always printed; secret values never are.
 */
import type { FieldChange, PlanWorld } from './model.ts';

export const HIDDEN = '(hidden)';

/** Why the values of an object in `namespace` are hidden: it is not a namespace the readers may see. */
export const otherNamespaceNote = (namespace: string, shown: readonly string[]): string =>
  `platform values shown as (hidden): the object's namespace ${namespace} is not one whose values this plan's readers may see (${shown.length ? shown.join(', ') : 'none'}; --show-values-in names them)`;

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

/** Undefined when the platform's values are shown; otherwise the note saying why they are hidden. */
export async function platformValuesHidden(world: PlanWorld, facts: ValueFacts): Promise<string | undefined> {
  if (world.showValues) return undefined;
  const readable = world.valuesNamespaces ?? [];
  if (!readable.includes(facts.namespace)) return otherNamespaceNote(facts.namespace, readable);
  if (facts.ownCredentials) return undefined;
  if (!world.kube || facts.observedId === undefined || facts.recordedId !== facts.observedId)
    return HIDDEN_NOTE;
  return (await world.kube.maySeeSecrets(facts.namespace)) ? undefined : HIDDEN_NOTE;
}

/** The changes as printed: the platform's values hidden (`hidden`: the note why) unless shown. */
export function shownChanges(
  changes: FieldChange[],
  hidden: string | undefined,
  notes: string[],
): FieldChange[] {
  if (hidden === undefined || changes.length === 0) return changes;
  notes.push(hidden);
  // The secrets row carries names only (never values): kept.
  return changes.map((c) => (c.field === 'secrets' ? c : { ...c, from: HIDDEN }));
}
