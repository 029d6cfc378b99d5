/**
 * Wiring of the AgentDeployment controller: its informers (the objects and the Secrets they reference),
 * the Secret -> object index behind the secondary watch, and the reconciler's dependencies on the
 * Kubernetes API. Informers run on every replica (warm caches); reconciles run only on the leader.
 */

import type { Logger } from 'pino';
import type { AgentDeployment, AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../../api/group.ts';
import { FINALIZER } from '../../api/names.ts';
import { type Credentials, credentialsKey } from '../../controlplane/credentials.ts';
import type { DefaultCredentialsScope, ScopeDecision } from '../../controlplane/default-credentials-scope.ts';
import type { ControlPlanePools } from '../../controlplane/pools.ts';
import { credentialsPolicy } from '../../controlplane/resolve-credentials.ts';
import { Deployment } from '../../controlplane/schemas.ts';
import type { KubeAccess } from '../../kube/access.ts';
import { Interner } from '../../lib/interner.ts';
import { knownFields } from '../../lib/known-fields.ts';
import { ClaimIndex } from '../../reconcile/agentdeployment/claim-index.ts';
import { deploymentNameOf } from '../../reconcile/agentdeployment/claims.ts';
import { identityOf, usableCredentials as usableCredentialsOf } from '../../reconcile/credentials.ts';
import { CacheArrivals } from '../../runtime/cache-arrivals.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { type EventRecorder, eventsOfKind } from '../../runtime/events.ts';
import { type RunningInformer, startInformer } from '../../runtime/informer.ts';
import { objectKey, splitKey } from '../../runtime/keys.ts';
import {
  addFinalizer,
  type ObjectRef,
  patchStatus,
  removeFinalizer,
  resourcePath,
} from '../../runtime/objects.ts';
import { ReadYourWrites } from '../../runtime/read-your-writes.ts';
import { createSecretCache, type SecretCache } from '../../runtime/secret-cache.ts';
import { statusMergePatch } from '../../runtime/status-patch.ts';
import { UnwrittenStatus } from '../../runtime/unwritten-status.ts';
import type { WorkQueue } from '../../runtime/workqueue.ts';
import { startWindowPolicies, type WindowPolicyController } from '../windowpolicy/index.ts';
import { CachedShare } from './cache/cached-share.ts';
import { internAgentDeployment, internDeployment, internProjection } from './cache/intern.ts';
import { watchNamespaceLabels } from './cache/namespace-labels.ts';
import { objectReads } from './cache/object-reads.ts';
import {
  type CachedAgentDeployment,
  fullObject,
  isProjection,
  projectAgentDeployment,
} from './cache/projection.ts';
import { SecretIndex } from './cache/secret-index.ts';
import {
  heldWhileListing,
  primeTakeover,
  recordedDeployments,
  settledAtGeneration,
} from './poll/first-listing.ts';
import { DeploymentObserver } from './poll/observer.ts';
import { SnapshotBudget } from './poll/snapshot-budget.ts';
import { changedEnough, releasesName } from './poll/wakeups.ts';
import { credentialsFinalizer } from './program/credentials-finalizer.ts';
import { agentDeploymentReconciler } from './reconciler.ts';
import type { AgentDeploymentDeps } from './types.ts';

export interface AgentDeploymentControllerOptions {
  access: KubeAccess;
  queue: WorkQueue;
  pools: ControlPlanePools;
  events: EventRecorder;
  logger: Logger;
  namespaces: string[];
  labelSelector: string;
  /** Which namespaces may use the default credentials; with a selector, namespaces are watched too. */
  defaultCredentialsScope: DefaultCredentialsScope;
  /** Bytes of referenced Secret values held per namespace (secret-cache.ts); default 8 MiB. */
  namespaceSecretBudget?: number;
  /** Bytes of deployment snapshots held per namespace (snapshot-budget.ts); default 32 MiB. */
  namespaceDeploymentBudget?: number;
  /**
   * Under --sharding=auto: whether a key is assigned to this replica. The objects not assigned to it are
   * cached as projections (projection.ts, cached-share.ts). Default: every object is assigned.
   */
  assigned?: (key: string) => boolean;
  /** Under --sharding=auto: whether this replica takes a key over should its assignee go (kept in full). */
  standsBy?: (key: string) => boolean;
  settings: Pick<
    AgentDeploymentDeps,
    | 'defaultCredentials'
    | 'allowedControlPlanes'
    | 'digestKey'
    | 'pollIntervalMs'
    | 'revisionPollMs'
    | 'reconcileRate'
    | 'verifier'
    | 'analyst'
    | 'writeFence'
  >;
}

export interface AgentDeploymentController {
  reconcile: Reconciler;
  /** Batched polling of the control plane; runs only while this replica leads. */
  observer: DeploymentObserver;
  /**
   * Lists the deployments every cached object records, in batches, before their first passes read them
   * (observer.prime): called as the workers start, so a restart costs ceil(N/100) calls, not N GETs.
   * With `keys`, a takeover under --sharding=auto: those objects only, and enqueued here (they were
   * not before): those the listing does not cover at once, the others once it ended, the changed
   * first, those it shows unchanged and whose status is settled without a token of the pace.
   */
  prime(keys?: readonly string[]): Promise<void>;
  /** The objects assigned to this replica in full, the others as projections (cached-share.ts). */
  objects: RunningInformer<CachedAgentDeployment, AgentDeployment>;
  /**
   * Keys no longer this replica's: the poll forgets them, the cache keeps projections of them (in full,
   * those it stands by for).
   */
  release(keys: readonly string[]): void;
  /**
   * Reads in full what this replica stands by for and holds as projections (it began standing by for
   * them when the members changed, after their last watch event), so that a failover reads nothing.
   * `signal` ends it (the replica leaves). Resolves with how many it read.
   */
  readStandby(signal: AbortSignal): Promise<number>;
  /** How many objects assigned to it or stood by for are projections alone (CachedShare.awaitsRead). */
  awaitingRead(): number;
  /** Moves whenever the cache or what decides an object's form there changes, beside the members' view. */
  changes(): number;
  /** Values only of the Secrets some object references (runtime/secret-cache.ts). */
  secrets: SecretCache;
  /** The DeploymentWindowPolicies, and what they hold (their status is written while started). */
  windowPolicies: WindowPolicyController;
  /** Whether a namespace may use the default credentials (reads its labels when a selector is set). */
  defaultCredentialsScope(namespace: string): ScopeDecision;
  /**
   * Whose calls a key's reconcile makes, for the queue's fairness and bulkheads: the credential identity
   * (credentialsKey) its credentials resolve to, whatever Secret names them; while they do not resolve,
   * the Secret's name (such a pass makes no call). A hostile server slows only its tenant.
   */
  tenantOf(key: string): string | undefined;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

const resource = { group: GROUP, version: VERSION, plural: AGENT_DEPLOYMENT.plural };
/** How long the create guard waits for its own mark to show in the cache before contesting anyway. */
const CACHE_ARRIVAL_TIMEOUT_MS = 5_000;

function refOf(obj: AgentDeployment): ObjectRef {
  return { resource, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}

export function startAgentDeploymentController(
  options: AgentDeploymentControllerOptions,
): AgentDeploymentController {
  const { access, queue, logger } = options;
  // The Secrets cache starts once the objects are indexed, so its first listing keeps the values of
  // every Secret already referenced and drops the rest.
  const index = new SecretIndex({
    firstReader: (secretKey) => secrets.reference(secretKey),
    lastReaderGone: (secretKey) => secrets.release(secretKey),
  });
  const secrets = createSecretCache({
    access,
    namespaces: options.namespaces,
    logger,
    isReferenced: (secretKey) => index.isRead(secretKey),
    onChange: (secretKey) => {
      for (const key of index.readersOf(secretKey)) queue.add(key);
    },
    ...(options.namespaceSecretBudget ? { namespaceBudgetBytes: options.namespaceSecretBudget } : {}),
  });
  // One copy of the values many objects and their deployments repeat.
  const interner = new Interner();
  // What a pass applied when its status write failed: the next pass must not send it again.
  const unwritten = new UnwrittenStatus<AgentDeployment>();
  const enqueue = (obj: CachedAgentDeployment) => queue.add(objectKey(obj));
  const policy = credentialsPolicy(
    options.settings.defaultCredentials,
    options.settings.allowedControlPlanes,
  );
  /**
   * The credentials an object's pass would call with, from what the cache holds (synchronous: an
   * object's own pass reads its credentials Secret first); undefined when it calls nothing.
   */
  const usableCredentials = (obj: CachedAgentDeployment): Credentials | undefined => {
    const ns = obj.metadata.namespace ?? '';
    return usableCredentialsOf(obj, (name) => secrets.peek(ns, name), scopeOf(ns), policy);
  };
  // The cached object of a key (`objects`, the informer, is started below: nothing asks before it runs).
  const objectOf = (key: string) => {
    const { namespace, name } = splitKey(key);
    return objects.get(namespace, name);
  };
  // An object without usable credentials writes nothing, so it claims nothing. The index reads the
  // objects from the cache.
  const claims = new ClaimIndex<CachedAgentDeployment>((obj) => identityOf(usableCredentials(obj)), {
    get: objectOf,
  });

  const arrivals = new CacheArrivals<CachedAgentDeployment>(objectOf);
  const share = new CachedShare({
    assigned: options.assigned ?? (() => true),
    ...(options.standsBy ? { standsBy: options.standsBy } : {}),
    ...objectReads(access, options.labelSelector || undefined),
  });
  const objects = startInformer<AgentDeployment, CachedAgentDeployment>({
    access,
    path: resourcePath(resource),
    transform: (obj) =>
      share.formOf(objectKey(obj)) === 'full'
        ? internAgentDeployment(interner, obj)
        : internProjection(interner, projectAgentDeployment(obj)),
    namespaces: options.namespaces,
    labelSelector: options.labelSelector || undefined,
    logger: logger.child({ informer: 'agentdeployments' }),
    onSettled: () => secrets.start(),
    onAdd: (obj) => {
      index.set(obj);
      claims.set(obj);
      arrivals.delivered(obj);
      enqueue(obj);
    },
    onUpdate: (oldObj, newObj) => {
      const full = fullObject(newObj);
      if (full) written.delivered(full);
      else {
        // No longer this replica's: what its passes wrote or failed to write is the new assignee's to judge.
        written.forget(objectKey(newObj));
        unwritten.forget(objectKey(newObj));
      }
      index.set(newObj);
      claims.set(newObj, oldObj);
      arrivals.delivered(newObj);
      if (changedEnough(oldObj, newObj)) enqueue(newObj);
      // It gave up a name (another name, or a create it stood down from): whoever lost it looks again now.
      if (releasesName(oldObj, newObj)) {
        for (const other of claims.keysNamed(deploymentNameOf(oldObj))) queue.add(other);
      }
    },
    onDelete: (obj) => {
      // Everything kept per object goes with it (deleted without a finalizer pass, e.g. while following).
      const key = objectKey(obj);
      index.delete(key);
      claims.delete(obj);
      unwritten.forget(key);
      written.forget(key);
      observer.untrack(key);
      windowPolicies.holds.forget(key);
      options.settings.verifier.forget(key);
      // Its claim on the name is gone: an object that lost the name to it looks again now.
      for (const other of claims.keysNamed(deploymentNameOf(obj))) queue.add(other);
    },
  });

  share.attach(objects);
  const namespaceLabels = watchNamespaceLabels({
    access,
    scope: options.defaultCredentialsScope,
    logger,
    labelsChanged: (namespace) => {
      for (const obj of objects.list(namespace)) enqueue(obj);
    },
  });
  const scopeOf = namespaceLabels.scopeOf;
  const windowPolicies = startWindowPolicies({
    access,
    logger,
    // A projection is not this replica's to look at.
    objects: () => objects.list().flatMap((obj) => fullObject(obj) ?? []),
    namespaceLabels: namespaceLabels.labelsOf,
    namespaces: namespaceLabels.list,
    scope: { namespaces: options.namespaces, labelSelector: options.labelSelector },
    enqueue,
  });

  const observer = new DeploymentObserver({
    pollIntervalMs: options.settings.pollIntervalMs,
    // What a server adds beyond the document's fields is not kept: snapshots are held for long.
    keep: (deployment) => internDeployment(interner, knownFields(Deployment, deployment)),
    budget: new SnapshotBudget(options.namespaceDeploymentBudget),
    clientFor: (credentials, signal) => options.pools.clientFor(credentials, { signal }),
    onChange: (key, how) => {
      // A takeover's object its listing shows unchanged: its pass calls and writes nothing if its
      // status is settled (first-listing.ts), so it takes no token of the pace.
      const obj = how?.unchanged ? objectOf(key) : undefined;
      if (obj && settledAtGeneration(obj, new Date())) queue.addUnpaced(key);
      else queue.add(key, { first: how?.first });
    },
    logger: logger.child({ component: 'observer' }),
  });

  const written = new ReadYourWrites<AgentDeployment>((key) => fullObject(objectOf(key)));
  const reconcileObject = agentDeploymentReconciler({
    observer,
    ...options.settings,
    heldObjects: () => queue.held(),
    defaultCredentialsScope: scopeOf,
    windowPolicies: (namespace, labels) => {
      const unknown =
        windowPolicies.unknown() ??
        (namespaceLabels.hasSynced() ? undefined : 'the namespaces are not listed yet');
      return unknown ? { unknown } : windowPolicies.selecting(namespaceLabels.labelsOf(namespace), labels);
    },
    windowHolds: (key, policies, own) => windowPolicies.holds.report(key, policies, own),
    ...credentialsFinalizer(access, secrets, (namespace) => objects.list(namespace)),
    // A projection is never a pass's object (the share reads it in full first).
    getObject: (namespace, name) => unwritten.overlay(written.read(fullObject(objects.get(namespace, name)))),
    storedObject: (obj) => unwritten.stored(obj),
    readSecret: (namespace, name) => secrets.read(namespace, name),
    writeStatus: (obj, status, signal) =>
      unwritten.write(obj, status, async (stored) => {
        const patch = statusMergePatch(stored.status ?? {}, status as AgentDeploymentStatus);
        // Only onto the version it was computed from: a pass that read an older one (a watch behind, the
        // previous owner's pass still in flight after a handover) is refused and runs again.
        const result = await patchStatus<AgentDeployment>(
          access,
          refOf(stored),
          patch,
          signal,
          stored.metadata.resourceVersion,
        );
        written.remember(stored, result);
        return result;
      }),
    addFinalizer: async (obj, signal) => {
      const result = await addFinalizer<AgentDeployment>(access, refOf(obj), FINALIZER, obj, signal);
      written.remember(obj, result);
      return result;
    },
    removeFinalizer: async (obj, signal) => {
      await removeFinalizer(access, refOf(obj), FINALIZER, obj, signal);
    },
    recordEvent: eventsOfKind(options.events, `${resource.group}/${resource.version}`, AGENT_DEPLOYMENT.kind),
    controlPlane: (credentials, signal, namespace) =>
      options.pools.clientFor(credentials, { signal, ...(namespace === undefined ? {} : { namespace }) }),
    claims: (query) => claims.claims(query),
    cacheShows: (obj, signal) => arrivals.until(obj, CACHE_ARRIVAL_TIMEOUT_MS, signal),
    now: () => new Date(),
  });

  // While the first listing of its credentials runs (prime), an object's pass waits for it.
  const reconcile = heldWhileListing(
    share.reconciler(reconcileObject),
    observer,
    objectOf,
    usableCredentials,
  );

  return {
    reconcile,
    observer,
    prime: async (keys) => {
      if (!keys) return observer.prime(recordedDeployments(objects.list(), usableCredentials));
      return primeTakeover(keys, {
        share,
        observer,
        objectOf,
        credentialsOf: usableCredentials,
        enqueue: (key) => queue.add(key),
        logger,
      });
    },
    objects,
    release: (keys) => {
      for (const key of keys) observer.untrack(key);
      share.conform(keys);
    },
    readStandby: (signal) => share.readStandby(objects.list().map(objectKey), signal),
    awaitingRead: () => {
      let count = 0;
      for (const obj of objects.list()) if (isProjection(obj) && share.awaitsRead(objectKey(obj))) count += 1;
      return count;
    },
    changes: () => objects.changes() + share.changes(),
    secrets,
    windowPolicies,
    defaultCredentialsScope: scopeOf,
    tenantOf: (key) => {
      const { namespace, name } = splitKey(key);
      const obj = objects.get(namespace, name);
      if (!obj) return undefined;
      // Credentials that do not resolve (or may not be used) make no call: one bucket per Secret name.
      const credentials = usableCredentials(obj);
      return credentials
        ? credentialsKey(credentials)
        : `unresolved:${namespace}/${obj.spec.credentialsSecretRef?.name ?? ''}`;
    },
    hasSynced: () =>
      objects.hasSynced() && secrets.hasSynced() && namespaceLabels.hasSynced() && windowPolicies.hasSynced(),
    stop: async () => {
      observer.stop();
      windowPolicies.holds.stop();
      await Promise.all([objects.stop(), secrets.stop(), namespaceLabels.stop(), windowPolicies.stop()]);
    },
  };
}
