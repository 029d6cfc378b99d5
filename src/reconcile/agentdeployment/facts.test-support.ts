/** Facts for the gates' table tests: a valid object past every gate unless a row changes it. */
import { conditionsWith } from '../../analysis/conditions.ts';
import * as outcome from '../../analysis/outcome.ts';
import type { AgentDeploymentSpec, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { FINALIZER } from '../../api/names.ts';
import { controlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { OBJECT_SECRET_BUDGET } from '../settings.ts';
import { derive, isDerived } from './advance.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import type { Gate, Verdict } from './verdict.ts';

export const BASE_URL = 'https://cp.example.com';

export function facts(
  over: {
    spec?: Partial<AgentDeploymentSpec>;
    status?: AgentDeploymentStatus;
    annotations?: Record<string, string>;
    finalizers?: string[];
    generation?: number;
  } & Partial<Omit<AgentDeploymentFacts, 'object'>> = {},
): AgentDeploymentFacts {
  const { spec, status, annotations, finalizers, generation, ...rest } = over;
  return {
    object: {
      metadata: {
        name: 'agent',
        namespace: 'team-a',
        uid: 'uid-agent',
        creationTimestamp: '2026-01-01T00:00:00Z',
        generation: generation ?? 1,
        annotations: annotations ?? {},
        finalizers: finalizers ?? [FINALIZER],
      },
      spec: {
        source: 'external_image',
        sourceConfig: { listenerId: 'l-1' },
        sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
        ...spec,
      } as AgentDeploymentSpec,
      status: status ?? {},
    },
    settings: {
      defaultCredentialsScope: { allowed: true },
      credentialsPolicy: credentialsPolicy(
        { baseUrl: BASE_URL, apiKey: 'controller-key' },
        controlPlaneAllowList('', BASE_URL),
      ),
      objectSecretBudget: OBJECT_SECRET_BUDGET,
    },
    reconcileRequested: false,
    statusKnown: true,
    appliedUnknown: false,
    digestKey: 'dk',
    now: new Date('2026-06-01T00:00:00Z'),
    revisionPollMs: 5_000,
    prepared: new Set(),
    ...rest,
  };
}

/**
 * The facts with the Secrets read (none given: none referenced), no DeploymentWindowPolicy selecting
 * them (unless set), credentials and desired state derived.
 */
export function resolved(
  f: AgentDeploymentFacts,
  claims: AgentDeploymentFacts['claims'] = { claims: () => [] },
) {
  f.secrets ??= { byName: new Map() };
  derive(f, 'credentials');
  derive(f, 'desired');
  f.claims ??= claims;
  f.policies ??= { readable: true, selecting: [] };
  const analysis = f.object.spec.analysis;
  if (analysis) f.conditions ??= conditionsWith(outcome, analysis);
  return f;
}

/** The deployment the platform holds for the facts' desired request (READY, its revision deployed). */
export function deploymentOf(f: AgentDeploymentFacts, over: Partial<Deployment> = {}): Deployment {
  if (!f.desired?.ok) throw new Error('no desired state');
  const { request } = f.desired;
  return {
    id: 'd-1',
    name: request.name,
    source: request.source,
    source_config: request.source_config,
    source_revision_config: request.source_revision_config,
    secrets: [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'READY',
    latest_revision_id: 'r-1',
    active_revision_id: 'r-1',
    ...over,
  } as Deployment;
}

/**
 * A gate's verdict on facts whose derived facts it reads (as the program gives them): the follow verdict
 * once a revision was read, and any derivation the gate asks for.
 */
export function decidedBy(gate: Gate, f: AgentDeploymentFacts): Verdict | undefined {
  if (f.followed && (f.inSync || f.observation) && !f.follow) derive(f, 'follow');
  for (;;) {
    const verdict = gate(f);
    if (verdict?.kind !== 'read' || !isDerived(verdict.read)) return verdict;
    derive(f, verdict.read);
  }
}
