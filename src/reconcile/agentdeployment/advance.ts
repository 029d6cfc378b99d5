/**
 * How the facts move on after a verdict that does not end the chain, the same for the controller and the
 * plan: a derived fact computed, a preparation marked made, a gone deployment forgotten, an adopted or
 * found one recorded as owned (in the status being built).
 */
import { credentialsFact } from '../credentials.ts';
import { desiredDeployment } from '../desired.ts';
import { forgetDeployment, recordOwned } from '../status.ts';
import { driftOf } from './derived.ts';
import { type AgentDeploymentFacts, lookupOf } from './facts.ts';
import { followVerdictOf } from './follow-verdict.ts';
import type { Bookkeeping, DerivedRead } from './verdict.ts';

const DERIVED: ReadonlySet<string> = new Set<DerivedRead>(['credentials', 'desired', 'drift', 'follow']);

export const isDerived = (read: string): read is DerivedRead => DERIVED.has(read);

export function derive(facts: AgentDeploymentFacts, read: DerivedRead): void {
  const { object } = facts;
  if (read === 'drift') {
    facts.drift = driftOf(facts);
    return;
  }
  if (read === 'follow') {
    facts.follow = followVerdictOf(facts);
    return;
  }
  if (read === 'credentials') {
    facts.credentials = credentialsFact(
      object.spec.credentialsSecretRef,
      lookupOf(facts),
      facts.settings.credentialsPolicy,
    );
    return;
  }
  const desired = desiredDeployment(object, lookupOf(facts), facts.digestKey ?? 'no-digest-key');
  if (desired.ok && !facts.digestKey) {
    // Without the controller's key the digest cannot match: the values are taken as unchanged.
    desired.digests = { ...desired.digests, secrets: object.status.secretsDigest ?? desired.digests.secrets };
  }
  // Nothing records what was sent (a plan of an object not in the cluster): the unechoed fields as applied.
  if (desired.ok && facts.appliedUnknown) object.status.appliedConfigDigest ??= desired.digests.unechoed;
  facts.desired = desired;
}

/** The facts after a bookkeeping verdict the gatherer acted on. */
export function advance(facts: AgentDeploymentFacts, verdict: Bookkeeping): void {
  const { status } = facts.object;
  switch (verdict.kind) {
    case 'prepare':
      facts.prepared.add(verdict.prepare);
      return;
    case 'forget':
      forgetDeployment(status);
      return;
    case 'inSync':
      // What the control plane has is what was applied (unless writes are held after a rollback).
      if (!verdict.held) {
        status.secretsDigest = verdict.digests.secrets;
        status.appliedConfigDigest = verdict.digests.unechoed;
      }
      facts.inSync = true;
      return;
    case 'observed':
      facts.observation = { drift: verdict.drift, fields: verdict.fields, digests: verdict.digests };
      return;
    case 'own': {
      const { deployment } = verdict;
      recordOwned(status, deployment.id, facts.credentials?.ok ? facts.credentials.tenant : undefined);
      facts.recorded = deployment;
      return;
    }
  }
}
