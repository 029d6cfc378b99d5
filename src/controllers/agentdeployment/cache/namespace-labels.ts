/**
 * The namespaces' labels: whether a namespace may use the default credentials (when they are scoped by a
 * namespace selector), which DeploymentWindowPolicies select its objects, and a wake-up of its objects
 * when its labels change (either may now differ).
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type {
  DefaultCredentialsScope,
  ScopeDecision,
} from '../../../controlplane/default-credentials-scope.ts';
import type { KubeAccess } from '../../../kube/access.ts';
import { startInformer } from '../../../runtime/informer.ts';

interface NamespaceLabels {
  /** Whether objects of a namespace may use the default credentials, from its cached labels. */
  scopeOf(namespace: string): ScopeDecision;
  /** A namespace's cached labels. */
  labelsOf(namespace: string): Record<string, string> | undefined;
  /** Every namespace with its labels. */
  list(): { name: string; labels: Record<string, string> | undefined }[];
  hasSynced(): boolean;
  stop(): Promise<void>;
}

export function watchNamespaceLabels(options: {
  access: KubeAccess;
  scope: DefaultCredentialsScope;
  logger: Logger;
  /** A namespace appeared or its labels changed. */
  labelsChanged: (namespace: string) => void;
}): NamespaceLabels {
  const { scope, labelsChanged } = options;
  const changed = (ns: V1Namespace) => labelsChanged(ns.metadata?.name ?? '');
  const namespaces = startInformer<V1Namespace>({
    access: options.access,
    path: '/api/v1/namespaces',
    logger: options.logger.child({ informer: 'namespaces' }),
    onAdd: changed,
    onUpdate: (oldNs, newNs) => {
      if (JSON.stringify(oldNs.metadata?.labels) !== JSON.stringify(newNs.metadata?.labels)) changed(newNs);
    },
  });
  const labelsOf = (namespace: string) => namespaces.get('', namespace)?.metadata?.labels;
  return {
    scopeOf: (namespace) => scope.decisionFor(namespace, labelsOf(namespace)),
    labelsOf,
    list: () =>
      namespaces.list().map((ns) => ({ name: ns.metadata?.name ?? '', labels: ns.metadata?.labels })),
    hasSynced: () => namespaces.hasSynced(),
    stop: () => namespaces.stop(),
  };
}
