/**
 * The plan's gather for the AgentDeployment program: the same facts the controller's pass reads, read
 * only. The controller's settings come from the ConfigMap the running controller publishes (without a
 * cluster: the plan's own flags); the Secrets from the input or the cluster; the claims of the objects
 * it may list, seen through the very rule the controller's claim index applies (reconcile/agentdeployment/claims.ts),
 * their credentials found by the one credentials helper; the deployments by GET and name lookup.
 * Bookkeeping the controller would do (finalizers, events) is only assumed made, or noted.
 */
import { readConditions } from '../analysis/conditions.ts';
import type { AgentDeployment, AgentDeploymentSpec } from '../api/agentdeployment.ts';
import type { Analysis } from '../api/analysis.ts';
import { Annotation } from '../api/names.ts';
import { lookupName, readById } from '../controlplane/deployment-reads.ts';
import { ClaimIndex } from '../reconcile/agentdeployment/claim-index.ts';
import { deploymentNameOf } from '../reconcile/agentdeployment/claims.ts';
import type { AgentDeploymentFacts, VerdictSettings } from '../reconcile/agentdeployment/facts.ts';
import { knownRevision } from '../reconcile/agentdeployment/follow.ts';
import { ownedDeployment } from '../reconcile/agentdeployment/owned.ts';
import { type PoliciesFact, selectingPolicies } from '../reconcile/agentdeployment/policy-windows.ts';
import type { ProgramPort } from '../reconcile/agentdeployment/program.ts';
import { identityOf, usableCredentials } from '../reconcile/credentials.ts';
import { publishedSettingsOf, verdictSettings } from '../reconcile/settings.ts';
import { referencedSecretNames } from '../translate/secrets.ts';
import type { LiveObject, PlanEntry, PlanWorld } from './model.ts';

/** Stops planning an object with this entry (the plan could not know, or the object is refused). */
export class PlanStop extends Error {
  readonly entry: Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>;
  constructor(entry: Omit<PlanEntry, 'kind' | 'namespace' | 'name' | 'notes'>) {
    super(entry.message);
    this.entry = entry;
  }
}

export const stop = (action: PlanEntry['action'], reason: string, message: string): never => {
  throw new PlanStop({ action, reason, message });
};

/** The controller's settings for objects of `namespace`; throws PlanStop `unknown` when not found. */
export async function planSettings(world: PlanWorld, namespace: string): Promise<VerdictSettings> {
  const { kube } = world;
  // Offline, the plan's own flags stand for the controller's (every namespace may use its credentials).
  const read = kube
    ? await kube.controllerSettings()
    : {
        ok: true as const,
        settings:
          world.settings ??
          publishedSettingsOf({
            allowedControlPlanes: world.allowedControlPlanes,
            defaultControlPlaneUrl: world.defaultCredentials.baseUrl,
          }),
      };
  if (!read.ok) {
    return stop(
      'unknown',
      'SettingsUnknown',
      `the controller's settings are unknown (${read.reason}; ConfigMap ${kube?.settingsLocation ?? 'none'} is where the running controller publishes them): which namespaces may use its credentials and which control planes are allowed decide what it does; run the controller, or name its namespace with --operator-namespace`,
    );
  }
  const published = read.settings;
  const labels =
    kube && published.defaultCredentials.namespaceSelector
      ? await kube.namespaceLabels(namespace)
      : undefined;
  return verdictSettings(published, namespace, labels, world.defaultCredentials);
}

/** The Secrets of a namespace as the plan reads them: the input's first, then the cluster's; once each. */
function secretReader(world: PlanWorld) {
  const read = new Map<string, Promise<Record<string, string> | undefined>>();
  return (namespace: string, name: string) => {
    const key = `${namespace}/${name}`;
    let got = read.get(key);
    if (!got) {
      const given = world.inputSecret?.(namespace, name);
      got = given
        ? Promise.resolve(given)
        : (world.kube?.secret(namespace, name) ?? Promise.resolve(undefined));
      read.set(key, got);
    }
    return got;
  };
}

/**
 * The claims of the other objects this user may list, indexed as the controller's informer cache is:
 * each object's current credentials resolved from its own Secret with the controller's settings for its
 * namespace.
 */
async function claimsOfOthers(
  world: PlanWorld,
  self: { namespace: string; name: string },
  others: readonly LiveObject[],
  readSecret: ReturnType<typeof secretReader>,
): Promise<ClaimIndex> {
  const settingsOf = new Map<string, Promise<VerdictSettings | undefined>>();
  const identities = new Map<string, ReturnType<typeof identityOf>>();
  const indexed: AgentDeployment[] = [];
  for (const other of others) {
    const namespace = other.metadata.namespace ?? self.namespace;
    if (namespace === self.namespace && other.metadata.name === self.name) continue;
    const obj = { ...other, metadata: { ...other.metadata, namespace } } as unknown as AgentDeployment;
    if (!obj.spec) continue;
    if (!settingsOf.has(namespace))
      settingsOf.set(
        namespace,
        planSettings(world, namespace).catch(() => undefined),
      );
    const settings = await settingsOf.get(namespace);
    const ref = obj.spec.credentialsSecretRef?.name;
    const data = ref ? await readSecret(namespace, ref) : undefined;
    const credentials =
      settings &&
      usableCredentials(
        obj,
        (name) => (name === ref ? data : undefined),
        settings.defaultCredentialsScope,
        settings.credentialsPolicy,
      );
    identities.set(`${namespace}/${obj.metadata.name}`, identityOf(credentials));
    indexed.push(obj);
  }
  return ClaimIndex.of(indexed, (obj) => identities.get(`${obj.metadata.namespace}/${obj.metadata.name}`));
}

/** The read-only port: reads the plan may make, and notes where the controller would write. */
export function planPort(
  world: PlanWorld,
  namespace: string,
  object: { spec: AgentDeploymentSpec; labels?: Record<string, string> | undefined },
  notes: string[],
): ProgramPort {
  const { spec } = object;
  const readSecret = secretReader(world);
  return {
    async read(read, facts) {
      const { kube } = world;
      switch (read) {
        case 'secrets': {
          const names = referencedSecretNames(spec);
          const unknown = names.filter((name) => !world.inputSecret?.(namespace, name));
          if (!kube && unknown.length > 0) {
            stop(
              'unknown',
              'NoCluster',
              `reads Secrets ${unknown.join(', ')}, which are neither in the input nor readable without a cluster: give them, or run the plan with a kubeconfig`,
            );
          }
          const data = await Promise.all(names.map((name) => readSecret(namespace, name)));
          facts.secrets = { byName: new Map(names.map((name, i) => [name, data[i]])) };
          return;
        }
        case 'claims': {
          const others = kube ? await kube.agentDeployments(namespace) : [];
          if (!others) notes.push('ownership not checked: this user may not list AgentDeployments');
          const index = await claimsOfOthers(
            world,
            { namespace, name: facts.object.metadata.name },
            others ?? [],
            readSecret,
          );
          facts.claims = { claims: (query) => index.claims(query) };
          return;
        }
        case 'conditions':
          facts.conditions = await readConditions(facts.object.spec.analysis as Analysis);
          return;
        case 'policies':
          facts.policies = await policiesOf(world, namespace, object.labels);
          if (!facts.policies.readable) notes.push(facts.policies.why);
          return;
        case 'recorded':
          facts.recorded = await readById(clientOf(world, facts), facts.object.status.deploymentId as string);
          return;
        case 'adopted':
          facts.adopted = await readById(
            clientOf(world, facts),
            facts.object.metadata.annotations?.[Annotation.AdoptDeploymentId] as string,
          );
          return;
        case 'byName':
          facts.byName = await lookupName(clientOf(world, facts), deploymentNameOf(facts.object));
          return;
        case 'revision': {
          // The deployment as read, and its latest revision: read unless known to have ended or active.
          const deployment = ownedDeployment(facts);
          if (!deployment) throw new Error('a revision was asked for without a deployment');
          const id = deployment.latest_revision_id;
          let revision = knownRevision(facts.object.status, deployment, !facts.observation);
          if (id && !revision) {
            const read = await clientOf(world, facts).getRevision(deployment.id, id);
            revision = { id, status: read.status, createdAt: read.created_at, updatedAt: read.updated_at };
          }
          facts.followed = { deployment, revision };
          return;
        }
      }
    },
    async act(verdict) {
      // The controller's Kubernetes-side bookkeeping is assumed made; what changes the outcome is noted.
      if (verdict.kind === 'forget') notes.push(verdict.message);
      if (verdict.kind === 'analysis' && verdict.refused) notes.push(verdict.refused);
      else if (verdict.kind === 'analysis' && verdict.analysis)
        notes.push(
          `the analysis of revision ${verdict.analysis.revisionId} would be ${verdict.analysis.phase}`,
        );
    },
  };
}

/** The DeploymentWindowPolicies selecting the object, as this user may read them. */
export async function policiesOf(
  world: PlanWorld,
  namespace: string,
  labels: Record<string, string> | undefined,
): Promise<PoliciesFact> {
  const unread = (why: string): PoliciesFact => ({
    readable: false,
    why: `DeploymentWindowPolicies not read (${why}): a freeze of the platform team's may hold what this plan shows`,
  });
  if (!world.kube) return unread('no cluster');
  const policies = await world.kube.windowPolicies();
  if (!policies) return unread('this user may not list them');
  if (!policies.length) return { readable: true, selecting: [] };
  const namespaceLabels = await world.kube.namespaceLabels(namespace);
  if (!namespaceLabels) return unread(`this user may not read namespace ${namespace}`);
  return { readable: true, selecting: selectingPolicies(policies, namespaceLabels, labels) };
}

function clientOf(world: PlanWorld, facts: AgentDeploymentFacts) {
  if (!facts.credentials?.ok) throw new Error('the control plane was asked for before credentials resolved');
  return world.controlPlane(facts.credentials.credentials);
}
