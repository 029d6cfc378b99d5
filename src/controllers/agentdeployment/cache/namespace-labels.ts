/**
 * The namespaces' labels, watched only when the default credentials are scoped by a namespace
 * selector: whether a namespace may use the default credentials, and a wake-up of its objects when its
 * labels change (they may now use the default credentials, or not).
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
  const namespaces = scope.selector
    ? startInformer<V1Namespace>({
        access: options.access,
        path: '/api/v1/namespaces',
        logger: options.logger.child({ informer: 'namespaces' }),
        onAdd: changed,
        onUpdate: (oldNs, newNs) => {
          if (JSON.stringify(oldNs.metadata?.labels) !== JSON.stringify(newNs.metadata?.labels))
            changed(newNs);
        },
      })
    : undefined;
  return {
    scopeOf: (namespace) => scope.decisionFor(namespace, namespaces?.get('', namespace)?.metadata?.labels),
    hasSynced: () => namespaces?.hasSynced() ?? true,
    stop: async () => {
      await namespaces?.stop();
    },
  };
}
