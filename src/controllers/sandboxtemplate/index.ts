/**
 * Wiring of the SandboxTemplate controller: its informers (the objects and the Secrets holding their
 * credentials), the shared per-credential listing snapshots, the optional importer, and the reconcile
 * entry point its workers call. Informers run on every replica; reconciles and imports only on the leader.
 */

import type { Logger } from 'pino';
import { GROUP, SANDBOX_TEMPLATE, VERSION } from '../../api/group.ts';
import type { SandboxTemplate, SandboxTemplateStatus } from '../../api/sandboxtemplate.ts';
import type { ControlPlaneAllowList } from '../../controlplane/allowed-control-planes.ts';
import type { Credentials } from '../../controlplane/credentials.ts';
import { credentialsKey } from '../../controlplane/credentials.ts';
import type { ScopeDecision } from '../../controlplane/default-credentials-scope.ts';
import type { ControlPlanePools } from '../../controlplane/pools.ts';
import { credentialsPolicy, resolveCredentials } from '../../controlplane/resolve-credentials.ts';
import type { KubeAccess } from '../../kube/access.ts';
import { isConflict } from '../../kube/errors.ts';
import { kubeRequest } from '../../kube/request.ts';
import { AbortScope } from '../../lib/abort-scope.ts';
import { usableCredentials } from '../../reconcile/credentials.ts';
import type { Reconciler } from '../../runtime/controller.ts';
import { type EventRecorder, eventsOfKind } from '../../runtime/events.ts';
import { type RunningInformer, startInformer } from '../../runtime/informer.ts';
import { objectKey, splitKey } from '../../runtime/keys.ts';
import { type ObjectRef, patchStatus, resourcePath } from '../../runtime/objects.ts';
import { ReadYourWrites } from '../../runtime/read-your-writes.ts';
import type { SecretCache } from '../../runtime/secret-cache.ts';
import { statusMergePatch } from '../../runtime/status-patch.ts';
import { shouldEnqueueUpdate } from '../../runtime/update-filter.ts';
import type { WorkQueue } from '../../runtime/workqueue.ts';
import { importedObject, TemplateImporter } from './importer.ts';
import { sandboxTemplateReconciler } from './reconciler.ts';
import { TemplateSnapshots } from './snapshots.ts';

export { IMPORTED_LABEL } from './importer.ts';

export interface SandboxTemplateControllerOptions {
  access: KubeAccess;
  queue: WorkQueue;
  pools: ControlPlanePools;
  events: EventRecorder;
  logger: Logger;
  namespaces: string[];
  labelSelector: string;
  /**
   * The Secrets cache (shared with the AgentDeployment controller). A credentials Secret that appears
   * is picked up at the object's next poll; its values are read on demand, once per resourceVersion.
   */
  secrets: SecretCache;
  defaultCredentials: Partial<Credentials>;
  /** Control planes a namespace's credentials Secret may name (default: the default credentials' only). */
  allowedControlPlanes?: ControlPlaneAllowList;
  /**
   * Whether objects of a namespace may use the default credentials (shared with the AgentDeployment
   * controller, which reads namespace labels). The import namespace always may: the administrator chose it.
   */
  defaultCredentialsScope(namespace: string): ScopeDecision;
  pollIntervalMs: number;
  /** Namespace to import every listed template into; undefined leaves import off. */
  importNamespace?: string;
  /** Templates per listing page (1 to 500); default 500. */
  pageSize?: number;
  /** Bytes of template listings one namespace's credentials Secrets may have held (snapshots.ts). */
  namespaceTemplateBudget?: number;
  /** The import loop's listing ends after this long, as a reconcile pass's would (--reconcile-timeout). */
  passDeadlineMs: number;
}

export interface SandboxTemplateController {
  reconcile: Reconciler;
  /**
   * The tenant a key's pass calls out with (its credentials' identity), for the work queue's fairness and
   * reserve workers; credentials that do not resolve make no call: one bucket per namespace and Secret.
   */
  tenantOf(key: string): string | undefined;
  /** The import loop (when import is on); runs only while this replica leads. */
  importer: TemplateImporter | undefined;
  objects: RunningInformer<SandboxTemplate>;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

const resource = { group: GROUP, version: VERSION, plural: SANDBOX_TEMPLATE.plural };
const API_VERSION = `${GROUP}/${VERSION}`;

function refOf(obj: SandboxTemplate): ObjectRef {
  return { resource, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name };
}

export function startSandboxTemplateController(
  options: SandboxTemplateControllerOptions,
): SandboxTemplateController {
  const { access, queue, logger, importNamespace, secrets } = options;
  const watchesAll = options.namespaces.length === 0 || options.namespaces.includes('');
  if (importNamespace !== undefined && !watchesAll && !options.namespaces.includes(importNamespace)) {
    throw new Error(
      `the sandbox template import namespace ${importNamespace} must be among the watched namespaces (${options.namespaces.join(', ')})`,
    );
  }
  const enqueue = (obj: SandboxTemplate) => queue.add(objectKey(obj));
  const objects = startInformer<SandboxTemplate>({
    access,
    path: resourcePath(resource),
    namespaces: options.namespaces,
    labelSelector: options.labelSelector || undefined,
    logger: logger.child({ informer: 'sandboxtemplates' }),
    onAdd: enqueue,
    onUpdate: (oldObj, newObj) => {
      written.delivered(newObj);
      if (shouldEnqueueUpdate(oldObj, newObj)) enqueue(newObj);
    },
    onDelete: (obj) => written.forget(objectKey(obj)),
  });

  const snapshots = new TemplateSnapshots(
    options.namespaceTemplateBudget ? { namespaceBudgetBytes: options.namespaceTemplateBudget } : {},
  );
  const listAll = (
    credentials: Credentials,
    { namespace, maxBytes, deadline }: { namespace?: string; maxBytes?: number; deadline?: AbortSignal },
  ) =>
    options.pools
      .clientFor(credentials, {
        ...(namespace === undefined ? {} : { namespace }),
        ...(maxBytes === undefined ? {} : { walkMaxBytes: maxBytes }),
        ...(deadline === undefined ? {} : { signal: deadline }),
      })
      .listAllSandboxTemplates(options.pageSize ? { pageSize: options.pageSize } : {});
  const scopeOf = (namespace: string): ScopeDecision =>
    namespace === importNamespace ? { allowed: true } : options.defaultCredentialsScope(namespace);
  const policy = credentialsPolicy(options.defaultCredentials, options.allowedControlPlanes);
  const tenantOf = (key: string): string | undefined => {
    const { namespace, name } = splitKey(key);
    const obj = objects.get(namespace, name);
    if (!obj) return undefined;
    // Synchronous: what the cache holds (the object's own pass reads its credentials Secret).
    const credentials = usableCredentials(obj, (n) => secrets.peek(namespace, n), scopeOf(namespace), policy);
    return credentials
      ? credentialsKey(credentials)
      : `unresolved:${namespace}/${obj.spec.credentialsSecretRef?.name ?? ''}`;
  };

  const written = new ReadYourWrites<SandboxTemplate>((key) => {
    const { namespace, name } = splitKey(key);
    return objects.get(namespace, name);
  });
  const reconcile = sandboxTemplateReconciler({
    getObject: (namespace, name) => written.read(objects.get(namespace, name)),
    readSecret: (namespace, name) => secrets.read(namespace, name),
    writeStatus: async (obj, status, signal) => {
      const patch = statusMergePatch(obj.status ?? {}, status as SandboxTemplateStatus);
      written.remember(
        obj,
        await patchStatus<SandboxTemplate>(access, refOf(obj), patch, signal, obj.metadata.resourceVersion),
      );
    },
    recordEvent: eventsOfKind(options.events, API_VERSION, SANDBOX_TEMPLATE.kind),
    listTemplates: listAll,
    snapshots,
    defaultCredentials: options.defaultCredentials,
    ...(options.allowedControlPlanes ? { allowedControlPlanes: options.allowedControlPlanes } : {}),
    defaultCredentialsScope: scopeOf,
    pollIntervalMs: options.pollIntervalMs,
    now: () => new Date(),
  });

  const importer =
    importNamespace === undefined
      ? undefined
      : new TemplateImporter({
          namespace: importNamespace,
          hasSynced: () => objects.hasSynced(),
          existing: () => objects.list(importNamespace),
          listTemplates: async () => {
            const credentials = resolveCredentials(
              undefined,
              () => undefined,
              credentialsPolicy(options.defaultCredentials),
            );
            // Ended with the listing (abort-scope.ts): a timeout signal fires at its deadline anyway.
            const listing = new AbortScope([], options.passDeadlineMs);
            try {
              const snapshot = await snapshots.get(
                credentialsKey(credentials),
                options.pollIntervalMs,
                (maxBytes, deadline) =>
                  listAll(credentials, {
                    ...(maxBytes === undefined ? {} : { maxBytes }),
                    ...(deadline === undefined ? {} : { deadline }),
                  }),
                undefined,
                listing.signal,
              );
              return snapshot.templates;
            } finally {
              listing.end();
            }
          },
          create: async (name, templateName) => {
            try {
              await kubeRequest(access, {
                method: 'POST',
                path: resourcePath(resource, importNamespace),
                body: importedObject(API_VERSION, SANDBOX_TEMPLATE.kind, importNamespace, name, templateName),
              });
            } catch (err) {
              if (!isConflict(err)) throw err;
            }
          },
          pollIntervalMs: options.pollIntervalMs,
          logger: logger.child({ loop: 'template-import' }),
        });

  return {
    reconcile,
    tenantOf,
    importer,
    objects,
    hasSynced: () => objects.hasSynced(),
    stop: async () => {
      importer?.stop();
      await objects.stop();
    },
  };
}
