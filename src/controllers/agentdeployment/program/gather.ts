/**
 * The controller's gather for the AgentDeployment program (reconcile/agentdeployment/): the facts of a
 * pass, and the port that reads the world for them (the Secret cache within its budgets, the claim
 * index, the batched poll's snapshot or a GET, the name lookup) and acts on the chain's bookkeeping (the
 * finalizer, the credentials Secret's in-use finalizer, the events of a forgotten, adopted or found
 * deployment).
 */
import { readConditions } from '../../../analysis/conditions.ts';
import type { Analysis } from '../../../api/analysis.ts';
import { Annotation, EventReason } from '../../../api/names.ts';
import { lookupName, readById } from '../../../controlplane/deployment-reads.ts';
import type { CredentialsPolicy } from '../../../controlplane/resolve-credentials.ts';
import { type Deployment, REVISION_SUCCEEDED } from '../../../controlplane/schemas.ts';
import { deploymentNameOf } from '../../../reconcile/agentdeployment/claims.ts';
import type { AgentDeploymentFacts, SecretsRead } from '../../../reconcile/agentdeployment/facts.ts';
import { agentDeploymentFacts } from '../../../reconcile/agentdeployment/facts-of.ts';
import { knownRevision } from '../../../reconcile/agentdeployment/follow.ts';
import { sameObservation } from '../../../reconcile/agentdeployment/observation.ts';
import { ownedDeployment, ownershipFactsOf } from '../../../reconcile/agentdeployment/owned.ts';
import type { ReadById } from '../../../reconcile/agentdeployment/ownership.ts';
import type { ProgramPort } from '../../../reconcile/agentdeployment/program.ts';
import { OBJECT_SECRET_BUDGET } from '../../../reconcile/settings.ts';
import type { PendingEvent } from '../../../runtime/reconcile-shell.ts';
import { SecretBudgetError } from '../../../runtime/secret-cache.ts';
import { referencedSecretNames } from '../../../translate/secrets.ts';
import { configurationDigest } from '../poll/snapshot-store.ts';
import type { AgentDeploymentDeps, AgentDeploymentPass } from '../types.ts';
import { type ExternalDeployment, externalDeployment } from './external.ts';

/** The facts a pass starts from: the object, the controller's settings for its namespace, nothing read. */
export function passFacts(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  policy: CredentialsPolicy,
): AgentDeploymentFacts {
  const namespace = pass.obj.metadata.namespace ?? '';
  return agentDeploymentFacts({
    object: {
      metadata: { ...pass.obj.metadata, generation: pass.generation },
      spec: pass.spec,
      status: pass.status,
    },
    settings: {
      defaultCredentialsScope: deps.defaultCredentialsScope(namespace),
      credentialsPolicy: policy,
      objectSecretBudget: OBJECT_SECRET_BUDGET,
    },
    digestKey: deps.digestKey,
    now: deps.now(),
    revisionPollMs: deps.revisionPollMs,
  });
}

/** The Secrets the object references, within its namespace's budget (the Secret cache's). */
export async function readSecrets(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
): Promise<SecretsRead> {
  const namespace = pass.obj.metadata.namespace ?? '';
  const names = referencedSecretNames(pass.spec);
  try {
    const data = await Promise.all(names.map((name) => deps.readSecret(namespace, name)));
    const byName = new Map(names.map((name, i) => [name, data[i]]));
    return { byName };
  } catch (err) {
    if (err instanceof SecretBudgetError) return { byName: new Map(), namespaceBudgetExceeded: err.message };
    throw err;
  }
}

/** The pass's facts, made once, when the first step asks. */
export function factsOf(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  policy: CredentialsPolicy,
): AgentDeploymentFacts {
  pass.facts ??= passFacts(deps, pass, policy);
  return pass.facts;
}

/** The credentials the facts resolved, and the tenant they reach. */
export function resolvedOf(facts: Pick<AgentDeploymentFacts, 'credentials'>) {
  if (!facts.credentials?.ok) throw new Error('the control plane was asked for before credentials resolved');
  return facts.credentials;
}

/** The client of the credentials the facts resolved; made once per pass (again if they change). */
export function passClient(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
) {
  const { credentials, identity } = resolvedOf(facts);
  if (!pass.client || pass.clientOf !== identity) {
    // Credentials from the namespace's own Secret count against its identities (pools.ts).
    const from = pass.spec.credentialsSecretRef ? (pass.obj.metadata.namespace ?? '') : undefined;
    pass.client = deps.controlPlane(credentials, pass.deadline, from);
    pass.clientOf = identity;
  }
  return pass.client;
}

/**
 * The port through which the program reads the world for the controller, and the act stage of its
 * bookkeeping verdicts: what they do outside the facts (the finalizer, the credentials Secret's in-use
 * finalizer, the observer's polling, events). The status they imply is the facts' (advance.ts).
 */
export function controllerPort(deps: AgentDeploymentDeps, pass: AgentDeploymentPass): ProgramPort {
  const { observer } = deps;
  const namespace = pass.obj.metadata.namespace ?? '';
  const note = (reason: EventReason, message: string, type: 'Normal' | 'Warning' = 'Normal') =>
    pass.events.push({ type, reason, message });
  /** What this pass read first-hand, held as the object's snapshot if its namespace's budget has room. */
  const remembered = (identity: string, read: ReadById): ReadById => {
    if (read === 'missing') return read;
    const overBudget = observer.remember(identity, read, pass.key);
    if (overBudget) throw overBudget;
    return read;
  };
  // The recorded deployment is the observer's snapshot (a listing, or an earlier pass's create or PATCH
  // answer), not a read of this pass; and how often the chain decided again on a read (readRevision).
  const reads = { fromSnapshot: false, redecisions: 0 };
  /** Watched from here: polled by the observer (`inSync`: compared with this configuration). */
  const watch = (facts: AgentDeploymentFacts, deployment: Deployment, inSync: boolean) => {
    observer.track(
      pass.key,
      resolvedOf(facts).credentials,
      deployment.id,
      inSync ? configurationDigest(deployment) : undefined,
    );
    pass.deployment = deployment;
  };
  return {
    async read(read, facts) {
      if (read === 'secrets') {
        facts.secrets = await readSecrets(deps, pass);
        return;
      }
      if (read === 'claims') {
        facts.claims = { claims: deps.claims };
        return;
      }
      if (read === 'conditions') {
        facts.conditions = await readConditions(facts.object.spec.analysis as Analysis);
        return;
      }
      if (read === 'policies') {
        const selecting = deps.windowPolicies(namespace, pass.obj.metadata.labels);
        facts.policies =
          'unknown' in selecting
            ? { readable: false, why: selecting.unknown, hold: true }
            : { readable: true, selecting };
        return;
      }
      const client = passClient(deps, pass, facts);
      const { identity } = resolvedOf(facts);
      switch (read) {
        case 'recorded': {
          const id = facts.object.status.deploymentId as string;
          const snapshot = observer.fresh(identity, id);
          facts.recorded = snapshot ?? remembered(identity, await readById(client, id));
          reads.fromSnapshot = snapshot !== undefined;
          if (facts.recorded === 'missing') observer.forget(identity, id);
          return;
        }
        case 'adopted': {
          const id = facts.object.metadata.annotations?.[Annotation.AdoptDeploymentId] as string;
          facts.adopted = remembered(identity, await readById(client, id, { namespaceChosen: true }));
          return;
        }
        case 'byName':
          facts.byName = await lookupName(client, deploymentNameOf({ ...pass.obj, spec: pass.spec }));
          return;
        case 'revision':
          facts.followed = await readRevision(reads, facts, passExternal(deps, pass, facts));
          return;
      }
    },
    async act(verdict, facts) {
      switch (verdict.kind) {
        case 'prepare':
          if (verdict.prepare === 'addFinalizer') {
            // The pass's later writes go onto the version this write made (their resourceVersion).
            pass.written = await deps.addFinalizer(pass.written ?? pass.obj, pass.signal);
            return;
          }
          {
            // The credentials must outlive this object (a namespace deletion removes both at once).
            const ref = pass.spec.credentialsSecretRef;
            if (ref && facts.secrets?.byName.get(ref.name))
              await deps.protectCredentials(namespace, ref.name, pass.signal);
            await deps.releaseCredentials(namespace, undefined, pass.signal);
          }
          return;
        case 'forget':
          reads.fromSnapshot = false;
          note(EventReason.DeploymentMissing, verdict.message, 'Warning');
          return;
        case 'own':
          observer.remember(resolvedOf(facts).identity, verdict.deployment, pass.key);
          if (verdict.message)
            note(verdict.how === 'adopted' ? EventReason.Adopted : EventReason.Found, verdict.message);
          return;
        case 'observed':
          watch(facts, verdict.deployment, false);
          return;
        case 'inSync':
          watch(facts, verdict.deployment, true);
          if (verdict.secretsTakenAsCurrent) pass.events.push(secretsTakenEvent(facts));
          return;
      }
    },
  };
}

/** The event of masked secret values taken as current, in sync or beside a PATCH. */
export function secretsTakenEvent(facts: AgentDeploymentFacts): PendingEvent {
  const names = facts.desired?.ok ? facts.desired.request.secrets.map((s) => s.name) : [];
  return {
    type: 'Normal',
    reason: EventReason.SecretsTakenAsCurrent,
    message: `the platform does not reveal secret values: took ${names.join(', ')} as current instead of redeploying; the next change to a secret is sent`,
  };
}

/** The external resource of a pass whose credentials resolved. */
export function passExternal(
  deps: AgentDeploymentDeps,
  pass: AgentDeploymentPass,
  facts: AgentDeploymentFacts,
): ExternalDeployment {
  return externalDeployment(deps, pass, passClient(deps, pass, facts), resolvedOf(facts), () =>
    ownershipFactsOf(facts),
  );
}

/** How many times one pass decides again on a deployment that changed while it was read. */
const MAX_REDECISIONS = 2;

/**
 * The deployment as it is now and its latest revision, read as little as will do: a snapshot the
 * revision was never looked at with is read again first (one read tells whether the revision runs and
 * all status shows); a revision not known to have ended, and not shown active, is read (its times drive
 * deadline and retry), and when it turns out deployed since the snapshot, the deployment once more.
 * A read again that shows another configuration or another latest revision than the one the chain
 * decided on is not followed: it becomes the observation and the chain decides again (undefined), so
 * Ready and the history come only from a read compared with the spec. Only reads: what the read shows
 * the facts learn (advance.ts, learnRevision).
 */
async function readRevision(
  reads: { fromSnapshot: boolean; redecisions: number },
  facts: AgentDeploymentFacts,
  external: ExternalDeployment,
): Promise<AgentDeploymentFacts['followed']> {
  const { status } = facts.object;
  let deployment = ownedDeployment(facts);
  if (!deployment) throw new Error('a revision was asked for without a deployment');
  // Observe-only reads the revision as it is, and no more (nothing it does depends on the deployment's).
  const managed = !facts.observation;
  if (managed && reads.fromSnapshot && isFirstLook(status, deployment)) {
    reads.fromSnapshot = false;
    const read = await external.refresh(deployment.id);
    if (!sameObservation(deployment, read)) return decideAgain(reads, facts, read);
    deployment = read;
  }
  const revisionId = deployment.latest_revision_id;
  if (!revisionId) return { deployment, revision: undefined };
  let revision = knownRevision(status, deployment, managed);
  if (!revision) {
    const read = await external.revision(deployment.id, revisionId);
    revision = {
      id: revisionId,
      status: read.status,
      createdAt: read.created_at,
      updatedAt: read.updated_at,
    };
    if (managed && REVISION_SUCCEEDED.has(read.status) && deployment.active_revision_id !== revisionId) {
      // The snapshot predates the deploy: read the deployment once so status shows what now runs.
      const now = await external.refresh(deployment.id);
      if (!sameObservation(deployment, now)) return decideAgain(reads, facts, now);
      deployment = now;
    }
  }
  return { deployment, revision };
}

/**
 * The deployment read again differs from the one the chain decided on: it becomes the recorded
 * observation, and the chain runs again on it (converge compares it with the spec) before the revision
 * is followed. A deployment that keeps changing under the pass ends it; the next pass starts afresh.
 */
function decideAgain(
  reads: { redecisions: number },
  facts: AgentDeploymentFacts,
  read: Deployment,
): AgentDeploymentFacts['followed'] {
  reads.redecisions += 1;
  if (reads.redecisions > MAX_REDECISIONS || ownedDeployment(facts)?.id !== read.id)
    throw new Error(`deployment ${read.id} changed while this pass read it; the next pass reads it afresh`);
  facts.recorded = read;
  facts.inSync = false;
  // What was derived from the older read goes with it.
  facts.drift = undefined;
  facts.follow = undefined;
  return undefined;
}

/** The latest revision was never looked at, and the deployment as known does not show it active. */
const isFirstLook = (status: AgentDeploymentFacts['object']['status'], deployment: Deployment): boolean =>
  !!deployment.latest_revision_id &&
  deployment.active_revision_id !== deployment.latest_revision_id &&
  !(status.latestRevisionId === deployment.latest_revision_id && status.revisionStatus);
