/**
 * How the facts move on, the same for the controller and the plan: a derived fact computed; after a
 * bookkeeping verdict, a preparation marked made, a gone deployment forgotten, an adopted or found one
 * recorded as owned, one in sync or observed recorded as watched; after the revision read and a
 * verification, what they showed. Each changes only the facts (their status is the chain's knowledge):
 * the act stage writes the status from them.
 */

import type { AnalysisStatus } from '../../api/analysis.ts';
import { credentialsFact } from '../credentials.ts';
import { claimsMet } from './claims-met.ts';
import { driftOf } from './derived.ts';
import { desiredDeployment } from './desired-deployment.ts';
import { type AgentDeploymentFacts, lookupOf } from './facts.ts';
import { followVerdictOf } from './follow-verdict.ts';
import { desiredConfig } from './history.ts';
import { observeAnalysis, observeRevision, observeVerified } from './history-record.ts';
import { ownedDeployment } from './owned.ts';
import { forgetDeployment, recordObserved, recordOwned, recordWatched } from './status.ts';
import type { Bookkeeping, DerivedRead } from './verdict.ts';
import { windowOf } from './window-fact.ts';

const DERIVED: ReadonlySet<string> = new Set<DerivedRead>([
  'credentials',
  'desired',
  'claimsMet',
  'drift',
  'follow',
  'window',
]);

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
  if (read === 'window') {
    facts.window = windowOf(facts);
    return;
  }
  if (read === 'claimsMet') {
    facts.claimsMet = claimsMet(facts) ?? null;
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
  const tenant = facts.credentials?.ok ? facts.credentials.tenant : undefined;
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
      recordWatched(status, verdict.deployment, tenant);
      facts.inSync = true;
      return;
    case 'observed':
      facts.observation = { drift: verdict.drift, fields: verdict.fields, digests: verdict.digests };
      recordWatched(status, verdict.deployment, tenant);
      // Only the object's own deployment (recorded or adopted) stays recorded, not one seen by name.
      if (!verdict.owned) delete status.deploymentId;
      status.drift = verdict.drift;
      return;
    case 'own': {
      const { deployment } = verdict;
      recordOwned(status, deployment.id, tenant);
      facts.recorded = deployment;
      return;
    }
    case 'analysis':
      if (verdict.promoteHandled !== undefined) status.lastHandledPromoteAt = verdict.promoteHandled;
      if (verdict.abortHandled !== undefined) status.lastHandledAbortAt = verdict.abortHandled;
      if (verdict.refused) status.analysisRequestRefused = verdict.refused;
      else if (verdict.promoteHandled !== undefined || verdict.abortHandled !== undefined)
        delete status.analysisRequestRefused;
      if (verdict.analysis) learnAnalysis(facts, verdict.analysis);
      return;
  }
}

/** status.analysis as it moved on (a start, a measurement, a person's request), and the history's mark. */
export function learnAnalysis(facts: AgentDeploymentFacts, analysis: AnalysisStatus): void {
  facts.object.status.analysis = analysis;
  observeAnalysis(historyContext(facts), analysis.revisionId, analysis.phase);
}

/** The history as a pass keeps it: the secrets and resources around a revision are the spec's. */
const historyContext = (facts: AgentDeploymentFacts) => ({
  status: facts.object.status,
  spec: facts.object.spec,
  generation: facts.object.metadata.generation ?? 0,
  around: facts.desired?.ok ? desiredConfig(facts.desired.request, facts.desired.digests.secrets) : {},
  now: facts.now,
});

/**
 * What the revision read showed (facts.followed): the deployment as read, the latest revision and its
 * status, and the history with it (the gates of safe rollouts decide on that history).
 */
export function learnRevision(facts: AgentDeploymentFacts): void {
  const { followed } = facts;
  if (!followed) return;
  const { status } = facts.object;
  const { deployment, revision } = followed;
  // Read again since the chain found it (the observation the inSync verdict recorded is older).
  if (deployment !== ownedDeployment(facts)) recordObserved(status, deployment);
  if (!revision) return;
  status.latestRevisionId = revision.id;
  status.revisionStatus = revision.status;
  observeRevision(historyContext(facts), deployment, revision.status);
}

/** A verification's result of revision `id`: its record, and the history's mark. */
export function learnVerification(
  facts: AgentDeploymentFacts,
  record: AgentDeploymentFacts['object']['status']['verification'],
  id: string,
  result: 'True' | 'False' | 'Unknown',
): void {
  facts.object.status.verification = record;
  observeVerified(historyContext(facts), id, result);
}
