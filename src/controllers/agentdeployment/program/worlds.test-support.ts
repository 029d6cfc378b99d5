/**
 * Worlds for the equivalence of the controller's pass and the plan (reconcile-equivalence.test.ts): an
 * object (spec, annotations, status, deletion), its Secrets, other objects and their claims, the
 * platform's deployments (on the simulator) and the controller's settings, built from a few dimensions.
 * world-verdicts.test-support.ts runs the controller's pass and the plan over it.
 */

import type { AgentDeployment, AgentDeploymentStatus } from '../../../api/agentdeployment.ts';
import type { DeploymentWindowPolicy } from '../../../api/deployment-window-policy.ts';
import { Annotation, FINALIZER } from '../../../api/names.ts';
import { controlPlaneAllowList } from '../../../controlplane/allowed-control-planes.ts';
import { ControlPlaneClient } from '../../../controlplane/client.ts';
import { credentialsPolicy } from '../../../controlplane/resolve-credentials.ts';
import { desiredDeployment } from '../../../reconcile/agentdeployment/desired-deployment.ts';
import { identityOf, usableCredentials } from '../../../reconcile/credentials.ts';
import { publishedSettingsOf } from '../../../reconcile/settings.ts';
import {
  DEFAULT_API_KEY,
  defaultListeners,
  type Simulator,
  type SimulatorOptions,
} from '../../../simulator/index.ts';
import { analysisWorld, DIGEST_KEY, NOW, remediationWorld } from './world-revisions.test-support.ts';

export { DIGEST_KEY, NOW };

export const NS = 'team-a';
const OTHER_NS = 'team-b';
const LISTENER = defaultListeners()[0]?.id as string;
/** A second listener, so a deployment can differ in an immutable field (the simulator takes both). */
const OTHER_LISTENER = {
  ...(defaultListeners()[0] as ReturnType<typeof defaultListeners>[number]),
  id: '11111111-1111-4111-8111-111111111111',
};
/** The simulator the worlds need. */
export const WORLD_SIMULATOR: SimulatorOptions = {
  revisionStepMs: 3_600_000,
  listeners: [...defaultListeners(), OTHER_LISTENER],
};
/** A deployment id the platform does not know. */
const GONE_ID = '00000000-0000-4000-8000-000000000000';

/** The dimensions a world is built from. */
export interface WorldSpec {
  platform: 'none' | 'inSync' | 'drifted' | 'immutable' | 'deleting';
  /** `pendingRecent`: a create sent a second ago got no answer (a deleted object waits for it). */
  record:
    | 'none'
    | 'recorded'
    | 'recordedGone'
    | 'otherTenant'
    | 'pendingAfter'
    | 'pendingBefore'
    | 'pendingRecent'
    | 'adopt';
  annotation: 'none' | 'paused' | 'badPollInterval' | 'reconcileRequested' | 'undoRequested';
  policy: 'full' | 'observeOnly';
  credentials: 'default' | 'secretAllowed' | 'secretNotAllowed' | 'secretMissing';
  scope: 'allowed' | 'notAllowed';
  secrets: 'present' | 'missing' | 'huge';
  other: 'none' | 'olderSameName' | 'olderObserveOnly' | 'olderRefused' | 'recordsSameId';
  held: boolean;
  deleting: boolean;
  /** The latest revision of the platform's deployment. */
  revision: 'deployed' | 'inProgress' | 'failed' | 'failedRequested';
  /**
   * Safe rollouts (issue 33), on a recorded deployment: its latest revision failed verification and an
   * earlier one is good (`rollbackDue`, under spec.remediation Rollback); the good one redeployed for this
   * spec (`rolledBack`); the spec went back to an earlier revision's configuration (`revert`), which the
   * platform may no longer have (`revertGone`: a 404 only sending finds).
   */
  remediation: 'none' | 'rollbackDue' | 'rolledBack' | 'revert' | 'revertGone';
  /**
   * spec.deploymentWindows: a Deny window open now (with the override annotation), or one later; or a
   * DeploymentWindowPolicy selecting the namespace with a Deny window open now (the override annotation
   * set, and the policy's manualOverride false or true).
   */
  window:
    | 'none'
    | 'denyNow'
    | 'denyNowOverride'
    | 'denyLater'
    | 'policyDenyNow'
    | 'policyOverrideRefused'
    | 'policyOverrideAllowed';
  /**
   * spec.analysis of the platform's latest revision: none asked for, one to start (`starts`), one
   * Running with no measurement due, Failed (spec.remediation None), Running with an abort requested,
   * Inconclusive with a promote requested, or a condition that does not compile (`invalid`).
   */
  analysis?: 'none' | 'starts' | 'running' | 'failed' | 'abortRequested' | 'promoteRequested' | 'invalid';
  /** Deleting worlds (deletion-equivalence.test.ts): spec.deletionPolicy, and the finalizer already off. */
  deletionPolicy?: 'Delete' | 'Orphan';
  withoutFinalizer?: boolean;
}

export const BASE: WorldSpec = {
  platform: 'none',
  record: 'none',
  annotation: 'none',
  policy: 'full',
  credentials: 'default',
  scope: 'allowed',
  secrets: 'present',
  other: 'none',
  held: false,
  deleting: false,
  revision: 'deployed',
  remediation: 'none',
  window: 'none',
};

export interface BuiltWorld {
  spec: WorldSpec;
  obj: AgentDeployment;
  /** Secrets by namespace/name (base64 values). */
  secrets: Map<string, Record<string, string>>;
  others: AgentDeployment[];
  settings: ReturnType<typeof publishedSettingsOf>;
  /** The DeploymentWindowPolicies of the cluster (selecting the namespace of labels NS_LABELS). */
  policies: DeploymentWindowPolicy[];
}

/** The labels of the worlds' namespace. */
export const NS_LABELS = { tier: 'prod' };

const b64 = (s: string) => Buffer.from(s).toString('base64');

function objectSpec(spec: WorldSpec, image = 'registry.example.com/agent:1'): AgentDeployment['spec'] {
  return {
    source: 'external_image',
    sourceConfig: { listenerId: LISTENER, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } },
    sourceRevisionConfig: { imageUri: image },
    secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'token' } } }],
    ...(spec.credentials !== 'default' ? { credentialsSecretRef: { name: 'agent-credentials' } } : {}),
    ...(spec.policy === 'observeOnly' ? { managementPolicies: ['Observe'] } : {}),
    ...(spec.deletionPolicy ? { deletionPolicy: spec.deletionPolicy } : {}),
  } as AgentDeployment['spec'];
}

/** Sets the simulator's deployments and builds the object and its neighbours for `spec`. */
export async function buildWorld(sim: Simulator, spec: WorldSpec): Promise<BuiltWorld> {
  for (const d of sim.deployments()) sim.deleteDeploymentBehindOperator(d.id);
  sim.holdDeletions(false);
  const secrets = new Map<string, Record<string, string>>();
  if (spec.secrets !== 'missing') {
    const token = spec.secrets === 'huge' ? 'x'.repeat(3 * 1024 * 1024) : 't0ken';
    secrets.set(`${NS}/agent-secrets`, { token: b64(token) });
  }
  if (spec.credentials !== 'secretMissing' && spec.credentials !== 'default') {
    const baseUrl = spec.credentials === 'secretAllowed' ? sim.url : 'https://elsewhere.example.com';
    secrets.set(`${NS}/agent-credentials`, { apiKey: b64(DEFAULT_API_KEY), baseUrl: b64(baseUrl) });
  }
  const obj: AgentDeployment = {
    apiVersion: 'deploy.agents.dev/v1alpha1',
    kind: 'AgentDeployment',
    metadata: {
      name: 'agent',
      namespace: NS,
      uid: 'uid-agent',
      generation: 1,
      creationTimestamp: new Date(NOW - 60_000),
      annotations: {},
      finalizers: (spec.policy === 'full' || spec.deleting) && !spec.withoutFinalizer ? [FINALIZER] : [],
    },
    spec: objectSpec(spec),
    status: {},
  } as unknown as AgentDeployment;
  const annotations = obj.metadata.annotations as Record<string, string>;
  if (spec.annotation === 'paused') annotations[Annotation.Paused] = 'true';
  if (spec.annotation === 'badPollInterval') annotations[Annotation.PollInterval] = '1ms';
  if (spec.annotation === 'reconcileRequested') annotations[Annotation.ReconcileRequestedAt] = 'now';
  if (spec.annotation === 'undoRequested') annotations[Annotation.UndoRequestedAt] = 'now';
  const policies: DeploymentWindowPolicy[] = [];
  if (spec.window.startsWith('policy')) {
    policies.push({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'DeploymentWindowPolicy',
      metadata: { name: 'freeze' },
      spec: {
        namespaceSelector: { matchLabels: NS_LABELS },
        windows: [{ kind: 'Deny', schedule: `0 ${new Date(NOW).getUTCHours()} * * *`, duration: '1h' }],
        manualOverride: spec.window === 'policyOverrideAllowed',
        allowRollback: true,
      },
    });
    if (spec.window !== 'policyDenyNow') annotations[Annotation.OverrideWindow] = 'hotfix';
  } else if (spec.window !== 'none') {
    const hour = new Date(NOW).getUTCHours();
    const at = spec.window === 'denyLater' ? (hour + 12) % 24 : hour;
    obj.spec.deploymentWindows = [{ kind: 'Deny', schedule: `0 ${at} * * *`, duration: '1h' }];
  }
  if (spec.window === 'denyNowOverride') annotations[Annotation.OverrideWindow] = 'hotfix';
  if (spec.deleting) obj.metadata.deletionTimestamp = new Date(NOW - 1_000);
  if (spec.revision === 'failedRequested') annotations[Annotation.RedeployRequestedAt] = 'please';

  // The platform: a deployment of the object's name, as the object would make it (or not quite).
  const lookup = (name: string) => secrets.get(`${NS}/${name}`);
  const platformLookup = (name: string) => (name === 'agent-secrets' ? { token: b64('t0ken') } : undefined);
  const desired = desiredDeployment(obj, lookup, DIGEST_KEY);
  const request = desiredDeployment(obj, platformLookup, DIGEST_KEY);
  if (!request.ok) throw new Error(request.message);
  const status = obj.status as AgentDeploymentStatus;
  let deploymentId: string | undefined;
  if (spec.platform !== 'none') {
    const client = new ControlPlaneClient({ credentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY } });
    try {
      const body = structuredClone(request.request);
      if (spec.platform === 'drifted') body.source_revision_config.image_uri = 'registry.example.com/agent:0';
      if (spec.platform === 'immutable') body.source_config.listener_id = OTHER_LISTENER.id;
      const made = await client.createDeployment(body).catch(() => client.createDeployment(request.request));
      deploymentId = made.id;
      const revisionStatus =
        spec.revision === 'inProgress'
          ? 'BUILDING'
          : spec.revision === 'deployed'
            ? 'DEPLOYED'
            : 'BUILD_FAILED';
      if (made.latest_revision_id) sim.setRevisionStatus(made.id, made.latest_revision_id, revisionStatus);
      if (spec.platform === 'deleting') {
        sim.holdDeletions(true);
        await client.deleteDeployment(made.id);
      }
    } finally {
      await client.close();
    }
  }
  const made = deploymentId ? sim.deployments().find((d) => d.id === deploymentId) : undefined;
  const tenantNow = identityOf(
    usableCredentials(
      obj,
      lookup,
      { allowed: true },
      credentialsPolicy({ baseUrl: sim.url, apiKey: DEFAULT_API_KEY }, controlPlaneAllowList('', sim.url)),
    ),
  )?.tenant;
  switch (spec.record) {
    case 'recorded':
      if (made) {
        status.deploymentId = made.id;
        if (tenantNow) status.credentialsDigest = tenantNow;
        if (desired.ok) {
          status.secretsDigest = desired.digests.secrets;
          status.appliedConfigDigest = desired.digests.unechoed;
        }
        status.latestRevisionId = made.latest_revision_id ?? undefined;
        if (spec.revision === 'deployed') status.revisionStatus = 'DEPLOYED';
      }
      break;
    case 'recordedGone':
      status.deploymentId = GONE_ID;
      if (tenantNow) status.credentialsDigest = tenantNow;
      break;
    case 'otherTenant':
      status.deploymentId = made?.id ?? GONE_ID;
      status.credentialsDigest = 'sha256:another-tenant';
      break;
    case 'pendingAfter':
      status.createPendingSince = new Date(NOW - 3_600_000).toISOString();
      break;
    case 'pendingBefore':
      status.createPendingSince = new Date(Date.now() + 3_600_000).toISOString();
      break;
    case 'pendingRecent':
      // The plan's clock is the wall's, the controller's NOW: a second ago by the wall is within the
      // late-commit window for both.
      status.createPendingSince = new Date(Date.now() - 1_000).toISOString();
      break;
    case 'adopt':
      annotations[Annotation.AdoptDeploymentId] = made?.id ?? GONE_ID;
      break;
  }
  if (spec.held) {
    status.observedGeneration = 1;
    status.conditions = [
      {
        type: 'Stalled',
        status: 'True',
        reason: 'Rejected',
        message: 'the control plane refused the request',
        observedGeneration: 1,
        lastTransitionTime: new Date(NOW - 120_000).toISOString(),
      },
    ];
  }

  const others: AgentDeployment[] = [];
  const other = (
    namespace: string,
    over: Partial<AgentDeployment['spec']>,
    status: AgentDeploymentStatus = {},
  ) =>
    ({
      apiVersion: 'deploy.agents.dev/v1alpha1',
      kind: 'AgentDeployment',
      metadata: {
        name: 'older',
        namespace,
        uid: `uid-older-${namespace}`,
        generation: 1,
        creationTimestamp: new Date(NOW - 3_600_000),
      },
      spec: { ...objectSpec({ ...BASE }), name: 'agent', ...over },
      status,
    }) as unknown as AgentDeployment;
  if (spec.other === 'olderSameName') others.push(other(NS, {}));
  if (spec.other === 'olderObserveOnly') others.push(other(NS, { managementPolicies: ['Observe'] }));
  if (spec.other === 'olderRefused') others.push(other(OTHER_NS, {}));
  if (spec.other === 'recordsSameId' && made)
    others.push(
      other(NS, {}, { deploymentId: made.id, ...(tenantNow ? { credentialsDigest: tenantNow } : {}) }),
    );
  if (spec.analysis && spec.analysis !== 'none') analysisWorld(spec.analysis, obj, made?.latest_revision_id);
  if (spec.remediation !== 'none' && spec.platform === 'inSync' && made)
    await remediationWorld(sim, spec.remediation, obj, made.id, platformLookup);
  const settings = publishedSettingsOf({
    // team-b may never use the default credentials; team-a only when allowed.
    defaultCredentialsNamespaces: spec.scope === 'allowed' ? [NS] : ['team-c'],
    allowedControlPlanes: controlPlaneAllowList('', sim.url),
    defaultControlPlaneUrl: sim.url,
  });
  return { spec, obj, secrets, others, settings, policies };
}
