/**
 * The AgentDeployment reconciler: a short decision table over ordered steps (DESIGN.md, "How a reconcile
 * decides"). Every pass starts from the object and a fresh observation. Status is written once, at the
 * end, and only when it changed; a pass that mutates the control plane ends right after the mutation, so
 * what it did (the deployment id, the applied digests) is recorded before anything else can happen.
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  AgentDeployment,
  AgentDeploymentSpec,
  AgentDeploymentStatus,
} from '../../api/agentdeployment.ts';
import { Annotation } from '../../api/annotations.ts';
import type { ControlPlaneClient } from '../../controlplane/client.ts';
import type { Credentials } from '../../controlplane/credentials.ts';
import { BadRequestError, NotFoundError } from '../../controlplane/errors.ts';
import {
  type Deployment,
  type DeploymentCreateRequest,
  REVISION_FAILED,
  REVISION_SUCCEEDED,
  type Revision,
  type RevisionStatus,
} from '../../controlplane/schemas.ts';
import { canonicalJson } from '../../translate/canonical-json.ts';
import { computeDrift } from '../../translate/drift.ts';
import { toCreateRequest } from '../../translate/request.ts';
import { plainDigest, resolveSecrets, type SecretLookup, secretsDigest } from '../../translate/secrets.ts';
import type { Verifier } from '../../verification/verifier.ts';
import { VERIFIED, type VerifiedCondition } from '../../verification/view.ts';
import { removeCondition, setCondition } from '../conditions.ts';
import { parseDuration } from '../duration.ts';
import { applyOutcome, type Outcome, outcomeOf, STICKY_STALL_REASONS, Stall, Wait } from '../outcome.ts';
import { resolveCredentials } from './credentials.ts';
import type { DeploymentObserver } from './observer.ts';

export const FINALIZER = 'deploy.agents.dev/finalizer';

export type EventType = 'Normal' | 'Warning';

export interface AgentDeploymentDeps {
  getObject(namespace: string, name: string): AgentDeployment | undefined;
  getSecretData(namespace: string, name: string): Record<string, string> | undefined;
  writeStatus(obj: AgentDeployment, status: AgentDeploymentStatus): Promise<void>;
  addFinalizer(obj: AgentDeployment): Promise<void>;
  removeFinalizer(obj: AgentDeployment): Promise<void>;
  recordEvent(obj: AgentDeployment, type: EventType, reason: string, message: string): void;
  controlPlane(credentials: Credentials): ControlPlaneClient;
  /** Batched observation: fresh snapshots instead of GETs, and which deployments to poll. */
  observer: Pick<DeploymentObserver, 'fresh' | 'remember' | 'forget' | 'track' | 'untrack'>;
  defaultCredentials: Partial<Credentials>;
  /** Keys the secrets digest (per object, with its uid); never leaves the process. */
  digestKey: string;
  pollIntervalMs: number;
  revisionPollMs: number;
  /** Post-deploy verification (spec.verification). */
  verifier: Pick<Verifier, 'step' | 'forget'>;
  now(): Date;
}

export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** State of one pass: the object, the status being built, and what it resolved along the way. */
interface Pass {
  obj: AgentDeployment;
  spec: AgentDeploymentSpec;
  generation: number;
  status: AgentDeploymentStatus;
  log: Logger;
  lookup: SecretLookup;
  key: string;
  /** The Verified condition, when this pass ran a verification step. */
  verified?: VerifiedCondition;
}

export class AgentDeploymentReconciler {
  readonly #deps: AgentDeploymentDeps;

  constructor(deps: AgentDeploymentDeps) {
    this.#deps = deps;
  }

  async reconcile(key: string, log: Logger): Promise<ReconcileResult> {
    const [namespace = '', name = ''] = key.split('/');
    const obj = this.#deps.getObject(namespace, name);
    if (!obj) return {};
    const pass: Pass = {
      obj,
      spec: obj.spec,
      generation: obj.metadata.generation ?? 0,
      status: structuredClone(obj.status ?? {}),
      log,
      lookup: (secretName) => this.#deps.getSecretData(namespace, secretName),
      key,
    };

    if (obj.metadata.deletionTimestamp) return this.#finalize(pass);

    let outcome: Outcome;
    let result: ReconcileResult = { requeueAfterMs: this.#pollInterval(obj) };
    let failure: unknown;
    try {
      ({ outcome, result } = await this.#run(pass));
    } catch (err) {
      outcome = outcomeOf(err);
      if (outcome.kind === 'transient') failure = err;
      else if (outcome.kind === 'waiting') {
        result = {
          requeueAfterMs:
            err instanceof Wait && err.retryAfterMs ? err.retryAfterMs : this.#pollInterval(obj),
        };
      }
      this.#noteProblem(pass, outcome);
    }
    // A paused object has not been reconciled at this generation: status must not claim it was.
    if (outcome.kind !== 'paused') pass.status.observedGeneration = pass.generation;
    pass.status.conditions = applyOutcome(
      pass.status.conditions ?? [],
      outcome,
      pass.generation,
      this.#deps.now(),
    );
    if (outcome.kind !== 'paused') this.#applyVerified(pass);
    await this.#writeStatusIfChanged(pass);
    if (failure) throw failure;
    return result;
  }

  /** Steps 2 to 7 of the decision table. */
  async #run(pass: Pass): Promise<{ outcome: Outcome; result: ReconcileResult }> {
    const { obj } = pass;
    if (obj.metadata.annotations?.[Annotation.Paused] === 'true') {
      return {
        outcome: {
          kind: 'paused',
          reason: 'Paused',
          message: `reconciliation paused by annotation ${Annotation.Paused}`,
        },
        result: {},
      };
    }
    const requestedAt = obj.metadata.annotations?.[Annotation.ReconcileRequestedAt];
    const stalled = pass.status.conditions?.find((c) => c.type === 'Stalled');
    const requested = requestedAt !== undefined && requestedAt !== pass.status.lastHandledReconcileAt;
    pass.status.lastHandledReconcileAt = requestedAt;
    if (
      stalled &&
      stalled.observedGeneration === pass.generation &&
      STICKY_STALL_REASONS.has(stalled.reason) &&
      !requested
    ) {
      // Needs a person: nothing is sent again until the object changes or a reconcile is requested.
      return {
        outcome: { kind: 'stalled', reason: stalled.reason, message: stalled.message },
        result: { requeueAfterMs: this.#pollInterval(obj) },
      };
    }

    // The finalizer goes on before the first create, so without it no earlier pass can have created
    // anything: there is nothing to look for by name.
    const mayHaveCreated = obj.metadata.finalizers?.includes(FINALIZER) ?? false;
    if (!mayHaveCreated) await this.#deps.addFinalizer(obj);
    const credentials = resolveCredentials(
      pass.spec.credentialsSecretRef,
      pass.lookup,
      this.#deps.defaultCredentials,
    );
    const client = this.#deps.controlPlane(credentials);
    const resolved = resolveSecrets(pass.spec, pass.lookup);
    if (!resolved.ok) {
      const parts = [
        ...(resolved.missing.length ? [`missing ${resolved.missing.join(', ')}`] : []),
        ...resolved.invalid,
      ];
      throw new Wait('WaitingForSecret', `secrets cannot be resolved: ${parts.join('; ')}`);
    }
    const deploymentName = pass.spec.name ?? obj.metadata.name;
    const desired = toCreateRequest(pass.spec, deploymentName, resolved.secrets);
    const digests = {
      secrets: secretsDigest(this.#objectKey(obj), resolved.secrets),
      unechoed: plainDigest([desired.source_config.install_command, desired.source_config.build_command]),
    };

    let observed = await this.#observe(pass, client, deploymentName, mayHaveCreated);
    if (!observed) {
      observed = await this.#create(client, desired);
      this.#deps.observer.remember(observed);
      this.#deps.observer.track(pass.key, credentials, observed.id);
      this.#recordApplied(pass, observed, digests);
      this.#deps.recordEvent(
        obj,
        'Normal',
        'Created',
        `created deployment ${observed.id} (${deploymentName})`,
      );
      pass.log.info({ deploymentId: observed.id }, 'created deployment');
      return this.#progressing(
        `deployment ${observed.id} created; following revision ${observed.latest_revision_id}`,
      );
    }

    this.#deps.observer.track(pass.key, credentials, observed.id);
    const drift = computeDrift({
      desired,
      observed,
      secretsDigest: { desired: digests.secrets, applied: pass.status.secretsDigest },
      unechoedDigest: { desired: digests.unechoed, applied: pass.status.appliedConfigDigest },
    });
    this.#recordObserved(pass, observed);
    if (drift.immutable.length > 0) {
      const fields = drift.immutable.map(
        (d) => `${d.field} (spec ${JSON.stringify(d.desired)}, control plane ${JSON.stringify(d.observed)})`,
      );
      throw new Stall(
        'ImmutableFieldChanged',
        `the control plane cannot change ${fields.join(', ')}; revert the spec or create a new object`,
      );
    }
    if (drift.patch) {
      const patched = await client.patchDeployment(observed.id, drift.patch);
      this.#deps.observer.remember(patched);
      this.#recordApplied(pass, patched, digests);
      const what = drift.createsRevision ? `; new revision ${patched.latest_revision_id}` : '';
      this.#deps.recordEvent(obj, 'Normal', 'Patched', `patched ${drift.changed.join(', ')}${what}`);
      pass.log.info({ deploymentId: observed.id, changed: drift.changed }, 'patched deployment');
      return drift.createsRevision
        ? this.#progressing(
            `patched ${drift.changed.join(', ')}; following revision ${patched.latest_revision_id}`,
          )
        : this.#followRevision(pass, client, patched, credentials);
    }
    // Nothing to send: what the control plane has is what was applied.
    pass.status.secretsDigest = digests.secrets;
    pass.status.appliedConfigDigest = digests.unechoed;
    return this.#followRevision(pass, client, observed, credentials);
  }

  /** The deployment this object manages, or undefined when one must be created. */
  async #observe(
    pass: Pass,
    client: ControlPlaneClient,
    deploymentName: string,
    mayHaveCreated: boolean,
  ): Promise<Deployment | undefined> {
    const { obj, status } = pass;
    const adoptId = obj.metadata.annotations?.[Annotation.AdoptDeploymentId];
    if (status.deploymentId) {
      if (adoptId && adoptId !== status.deploymentId) {
        throw new Stall(
          'AdoptionConflict',
          `annotation ${Annotation.AdoptDeploymentId} names ${adoptId} but this object manages ${status.deploymentId}`,
        );
      }
      const cached = this.#deps.observer.fresh(status.deploymentId);
      if (cached) return cached;
      try {
        const current = await client.getDeployment(status.deploymentId);
        this.#deps.observer.remember(current);
        return current;
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        this.#deps.observer.forget(status.deploymentId);
        this.#deps.recordEvent(
          obj,
          'Warning',
          'DeploymentMissing',
          `deployment ${status.deploymentId} no longer exists on the control plane; creating it again`,
        );
        pass.log.warn({ deploymentId: status.deploymentId }, 'deployment deleted outside the operator');
        this.#forgetDeployment(pass);
      }
    } else if (adoptId) {
      try {
        const adopted = await client.getDeployment(adoptId);
        this.#deps.observer.remember(adopted);
        status.deploymentId = adopted.id;
        this.#deps.recordEvent(
          obj,
          'Normal',
          'Adopted',
          `adopted deployment ${adopted.id} (${adopted.name})`,
        );
        return adopted;
      } catch (err) {
        if (err instanceof NotFoundError) {
          throw new Stall(
            'AdoptionFailed',
            `annotation ${Annotation.AdoptDeploymentId} names ${adoptId}, which does not exist`,
          );
        }
        throw err;
      }
    }
    if (!mayHaveCreated) return undefined;
    // No id recorded, but an earlier pass may have created it and died before writing status.
    const found = await client.findDeploymentsByName(deploymentName);
    const existing = found[0];
    if (existing) {
      this.#deps.observer.remember(existing);
      status.deploymentId = existing.id;
      this.#deps.recordEvent(
        obj,
        'Normal',
        'Found',
        `found existing deployment ${existing.id} named ${deploymentName}`,
      );
      return existing;
    }
    return undefined;
  }

  /** POST; a name already taken by a deployment this object did not create is for a person to settle. */
  async #create(client: ControlPlaneClient, desired: DeploymentCreateRequest): Promise<Deployment> {
    try {
      return await client.createDeployment(desired);
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      throw new Stall(
        'Rejected',
        `${err.message}. If an existing deployment of that name should be managed by this object, set the annotation ${Annotation.AdoptDeploymentId} to its id; otherwise choose another spec.name`,
      );
    }
  }

  /** Step 7: follow the latest revision until DEPLOYED/SKIPPED or a failure. */
  async #followRevision(
    pass: Pass,
    client: ControlPlaneClient,
    deployment: Deployment,
    credentials: Credentials,
  ): Promise<{ outcome: Outcome; result: ReconcileResult }> {
    const { status } = pass;
    const revisionId = deployment.latest_revision_id;
    if (!revisionId) {
      return this.#progressing(`deployment ${deployment.id} has no revision yet`);
    }
    const known =
      status.latestRevisionId === revisionId
        ? (status.revisionStatus as RevisionStatus | undefined)
        : undefined;
    let revisionStatus = known;
    if (!known || !isTerminal(known)) {
      const revision: Revision = await client.getRevision(deployment.id, revisionId);
      revisionStatus = revision.status;
      if (revision.status !== known) this.#noteRevision(pass, revision);
      if (REVISION_SUCCEEDED.has(revision.status) && deployment.active_revision_id !== revisionId) {
        // The snapshot predates the deploy: read the deployment once so status shows what now runs.
        const current = await client.getDeployment(deployment.id);
        this.#deps.observer.remember(current);
        this.#recordObserved(pass, current);
      }
    }
    status.latestRevisionId = revisionId;
    status.revisionStatus = revisionStatus;
    if (revisionStatus && REVISION_FAILED.has(revisionStatus)) {
      throw new Stall(
        'RevisionFailed',
        `revision ${revisionId} ended in ${revisionStatus}; change the spec to try again`,
      );
    }
    if (revisionStatus && REVISION_SUCCEEDED.has(revisionStatus)) {
      if (pass.spec.verification) return this.#verify(pass, credentials, revisionId);
      return {
        outcome: {
          kind: 'ready',
          reason: 'Succeeded',
          message: `revision ${revisionId} is ${revisionStatus}`,
        },
        result: { requeueAfterMs: this.#pollInterval(pass.obj) },
      };
    }
    return this.#progressing(`revision ${revisionId} is ${revisionStatus ?? 'unknown'}`);
  }

  /** Step 7b: the revision runs; prove it answers before calling the object Ready. */
  async #verify(
    pass: Pass,
    credentials: Credentials,
    revisionId: string,
  ): Promise<{ outcome: Outcome; result: ReconcileResult }> {
    const { obj } = pass;
    const step = await this.#deps.verifier.step({
      key: pass.key,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name,
      uid: obj.metadata.uid ?? obj.metadata.name,
      spec: pass.spec.verification as NonNullable<AgentDeploymentSpec['verification']>,
      revisionId,
      url: pass.status.url,
      credentials,
      record: pass.status.verification,
      log: pass.log,
    });
    pass.status.verification = step.record;
    pass.verified = step.view.verified;
    if (step.event) this.#deps.recordEvent(obj, step.event.type, step.event.reason, step.event.message);
    const poll = this.#pollInterval(obj);
    return {
      outcome: step.view.outcome,
      result: { requeueAfterMs: Math.min(poll, step.requeueAfterMs ?? poll) },
    };
  }

  /** The Verified condition: set by a verification step, reset by a new revision, gone without a spec. */
  #applyVerified(pass: Pass) {
    const { status } = pass;
    let conditions = status.conditions ?? [];
    const now = this.#deps.now();
    if (!pass.spec.verification) {
      delete status.verification;
      this.#deps.verifier.forget(pass.key);
      status.conditions = removeCondition(conditions, VERIFIED);
      return;
    }
    if (!pass.verified && status.verification && status.verification.revisionId !== status.latestRevisionId) {
      delete status.verification;
      this.#deps.verifier.forget(pass.key);
    }
    const verified: VerifiedCondition | undefined =
      pass.verified ??
      (status.verification
        ? undefined
        : {
            status: 'Unknown',
            reason: 'WaitingForRevision',
            message: `verification waits for revision ${status.latestRevisionId ?? '(none)'} to be DEPLOYED`,
          });
    if (verified) {
      conditions = setCondition(
        conditions,
        { type: VERIFIED, ...verified, observedGeneration: pass.generation },
        now,
      );
    }
    status.conditions = conditions;
  }

  #progressing(message: string): { outcome: Outcome; result: ReconcileResult } {
    return {
      outcome: { kind: 'progressing', reason: 'Progressing', message },
      result: { requeueAfterMs: this.#deps.revisionPollMs },
    };
  }

  #recordApplied(pass: Pass, deployment: Deployment, digests: { secrets: string; unechoed: string }) {
    pass.status.secretsDigest = digests.secrets;
    pass.status.appliedConfigDigest = digests.unechoed;
    this.#recordObserved(pass, deployment);
  }

  #recordObserved(pass: Pass, d: Deployment) {
    const s = pass.status;
    s.deploymentId = d.id;
    if (d.latest_revision_id !== s.latestRevisionId) {
      s.latestRevisionId = d.latest_revision_id ?? undefined;
      s.revisionStatus = undefined;
    }
    s.activeRevisionId = d.active_revision_id ?? undefined;
    s.deploymentStatus = d.status;
    s.url = d.source_config.custom_url ?? undefined;
    s.imageVersion = d.image_version ?? undefined;
    s.repoCommitSha = d.source_revision_config.repo_commit_sha ?? undefined;
  }

  #forgetDeployment(pass: Pass) {
    const s = pass.status;
    for (const k of [
      'deploymentId',
      'latestRevisionId',
      'activeRevisionId',
      'revisionStatus',
      'deploymentStatus',
      'url',
      'imageVersion',
      'repoCommitSha',
      'secretsDigest',
      'appliedConfigDigest',
      'verification',
    ] as const) {
      delete s[k];
    }
  }

  #noteRevision(pass: Pass, revision: Revision) {
    if (REVISION_FAILED.has(revision.status)) {
      this.#deps.recordEvent(
        pass.obj,
        'Warning',
        'RevisionFailed',
        `revision ${revision.id} ended in ${revision.status}`,
      );
    } else if (revision.status === 'DEPLOYED') {
      this.#deps.recordEvent(pass.obj, 'Normal', 'RevisionDeployed', `revision ${revision.id} is DEPLOYED`);
    }
  }

  /** A Warning event when a problem first appears or changes, not on every retry. */
  #noteProblem(pass: Pass, outcome: Outcome) {
    if (outcome.kind === 'ready' || outcome.kind === 'progressing' || outcome.kind === 'paused') return;
    const previous = pass.status.conditions?.find((c) =>
      outcome.kind === 'stalled' ? c.type === 'Stalled' : c.type === 'Reconciling',
    );
    if (previous?.reason === outcome.reason && previous.message === outcome.message) return;
    this.#deps.recordEvent(pass.obj, 'Warning', outcome.reason, outcome.message);
    pass.log.warn({ reason: outcome.reason }, outcome.message);
  }

  /** Step 1: apply the deletion policy, then release the finalizer. */
  async #finalize(pass: Pass): Promise<ReconcileResult> {
    const { obj, spec, status } = pass;
    this.#deps.observer.untrack(pass.key);
    this.#deps.verifier.forget(pass.key);
    if (!obj.metadata.finalizers?.includes(FINALIZER)) return {};
    if ((spec.deletionPolicy ?? 'Delete') === 'Delete') {
      try {
        const credentials = resolveCredentials(
          spec.credentialsSecretRef,
          pass.lookup,
          this.#deps.defaultCredentials,
        );
        const client = this.#deps.controlPlane(credentials);
        const name = spec.name ?? obj.metadata.name;
        const ids = status.deploymentId
          ? [status.deploymentId]
          : (await client.findDeploymentsByName(name)).map((d) => d.id);
        for (const id of ids) {
          try {
            await client.deleteDeployment(id);
            this.#deps.recordEvent(obj, 'Normal', 'Deleted', `deleted deployment ${id}`);
          } catch (err) {
            if (!(err instanceof NotFoundError)) throw err;
          }
        }
      } catch (err) {
        const outcome = outcomeOf(err);
        const message = `deleting the deployment failed: ${outcome.message}; the finalizer stays (set spec.deletionPolicy to Orphan to release it)`;
        pass.status.conditions = applyOutcome(
          pass.status.conditions ?? [],
          { kind: 'transient', reason: 'DeleteFailed', message },
          pass.generation,
          this.#deps.now(),
        );
        this.#noteProblem(pass, { kind: 'stalled', reason: 'DeleteFailed', message });
        await this.#writeStatusIfChanged(pass);
        throw err;
      }
    } else {
      this.#deps.recordEvent(
        obj,
        'Normal',
        'Orphaned',
        `left deployment ${status.deploymentId ?? '(none)'} on the control plane`,
      );
    }
    await this.#deps.removeFinalizer(obj);
    return {};
  }

  async #writeStatusIfChanged(pass: Pass) {
    const before = pass.obj.status ?? {};
    const after = pass.status;
    if (canonicalJson(before) === canonicalJson(after)) return;
    await this.#deps.writeStatus(pass.obj, after);
  }

  #pollInterval(obj: AgentDeployment): number {
    const annotated = obj.metadata.annotations?.[Annotation.PollInterval];
    const parsed = annotated ? parseDuration(annotated) : undefined;
    return parsed ?? this.#deps.pollIntervalMs;
  }

  #objectKey(obj: AgentDeployment): string {
    return createHmac('sha256', this.#deps.digestKey)
      .update(obj.metadata.uid ?? obj.metadata.name)
      .digest('hex');
  }
}

function isTerminal(s: RevisionStatus): boolean {
  return REVISION_FAILED.has(s) || REVISION_SUCCEEDED.has(s);
}
