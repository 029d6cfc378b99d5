/**
 * Which namespaces may use the controller's own (default) credentials: a list of namespaces and/or a
 * label selector on namespaces, chosen by the administrator. Neither set: every namespace may, as before
 * scoping existed. An object in any other namespace must name its own credentials
 * (spec.credentialsSecretRef); with the defaults it writes nothing, adopts nothing and calls nothing.
 */
import { type LabelSelector, parseLabelSelector } from '../lib/label-selector.ts';

export type ScopeDecision = { allowed: true } | { allowed: false; message: string };

export interface DefaultCredentialsScope {
  /** True when no list or selector is set: every namespace may use the default credentials. */
  readonly everyNamespace: boolean;
  /** Set when namespaces are chosen by their labels (the controller then reads namespaces). */
  readonly selector: LabelSelector | undefined;
  /**
   * Whether objects of `namespace` may use the default credentials. `labels`: the namespace's labels,
   * undefined when it is not known (then only the list can allow it).
   */
  decisionFor(namespace: string, labels: Record<string, string> | undefined): ScopeDecision;
}

export function defaultCredentialsScope(options: {
  namespaces: readonly string[];
  namespaceSelector: string;
}): DefaultCredentialsScope {
  const listed = new Set(options.namespaces);
  const selector = options.namespaceSelector.trim()
    ? parseLabelSelector(options.namespaceSelector)
    : undefined;
  const everyNamespace = listed.size === 0 && selector === undefined;
  return {
    everyNamespace,
    selector,
    decisionFor(namespace, labels) {
      if (everyNamespace || listed.has(namespace)) return { allowed: true };
      if (selector && labels && selector.matches(labels)) return { allowed: true };
      return {
        allowed: false,
        message: `namespace ${namespace} may not use the controller's default credentials: name a Secret of this namespace in spec.credentialsSecretRef (keys apiKey or bearerToken, optionally tenantId and baseUrl), or ask the administrator to allow the namespace (--default-credentials-namespaces, --default-credentials-namespace-selector); nothing was sent to the control plane`,
      };
    },
  };
}
