/**
 * The controller's settings that change a verdict, as the running controller publishes them (a ConfigMap
 * it owns in its own namespace, runtime/publish-settings.ts) and the plan reads them: which namespaces
 * may use the default credentials, the control planes a credentials Secret may name, the Secret budgets.
 * Nothing secret: names, URLs and byte counts.
 */
import { z } from 'zod';
import { type ControlPlaneAllowList, controlPlaneAllowList } from '../controlplane/allowed-control-planes.ts';
import type { Credentials } from '../controlplane/credentials.ts';
import { defaultCredentialsScope } from '../controlplane/default-credentials-scope.ts';
import { credentialsPolicy } from '../controlplane/resolve-credentials.ts';
import type { VerdictSettings } from './agentdeployment/facts.ts';

/** The ConfigMap's name (in the controller's namespace) and its one key. */
export const SETTINGS_CONFIGMAP = 'agent-deployment-operator-settings';
export const SETTINGS_KEY = 'settings.json';

/**
 * The most bytes of Secret values one object may reference, all its Secrets together (credentials
 * included): twice Kubernetes' largest Secret, far above what a deployment's environment needs.
 */
export const OBJECT_SECRET_BUDGET = 2 * 1024 * 1024;

/** 8 MiB: eight Secrets at Kubernetes' largest, thousands of ordinary ones (--namespace-secret-budget). */
export const DEFAULT_NAMESPACE_SECRET_BUDGET = 8 * 1024 * 1024;

/** A release version (semver): what `kubectl agd` may print and name in its install advice. */
const RELEASE_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export const PublishedSettings = z.object({
  /**
   * The running controller's version, which `kubectl agd version` and the plan's version note read
   * (absent from controllers before it was published).
   */
  controllerVersion: z.string().regex(RELEASE_VERSION).optional(),
  /** --default-credentials-namespaces and --default-credentials-namespace-selector. */
  defaultCredentials: z.object({
    namespaces: z.array(z.string()),
    namespaceSelector: z.string(),
  }),
  /** The default credentials' control plane (always allowed); absent when the controller has none. */
  defaultControlPlaneUrl: z.string().optional(),
  /** --allowed-control-plane-urls, normalised, the default credentials' URL first. */
  allowedControlPlaneUrls: z.array(z.string()),
  objectSecretBudget: z.number().int().positive(),
  /** --namespace-secret-budget: what the controller holds of one namespace's Secret values at most. */
  namespaceSecretBudget: z.number().int().positive(),
});
export type PublishedSettings = z.infer<typeof PublishedSettings>;

/** The settings as published, from the controller's configuration (or the plan's flags, offline). */
export function publishedSettingsOf(options: {
  controllerVersion?: string;
  defaultCredentialsNamespaces?: readonly string[];
  defaultCredentialsNamespaceSelector?: string;
  allowedControlPlanes?: ControlPlaneAllowList | undefined;
  defaultControlPlaneUrl?: string | undefined;
  namespaceSecretBudget?: number | undefined;
}): PublishedSettings {
  return {
    ...(options.controllerVersion ? { controllerVersion: options.controllerVersion } : {}),
    defaultCredentials: {
      namespaces: [...(options.defaultCredentialsNamespaces ?? [])],
      namespaceSelector: options.defaultCredentialsNamespaceSelector ?? '',
    },
    ...(options.defaultControlPlaneUrl ? { defaultControlPlaneUrl: options.defaultControlPlaneUrl } : {}),
    allowedControlPlaneUrls: [...(options.allowedControlPlanes?.entries ?? [])],
    objectSecretBudget: OBJECT_SECRET_BUDGET,
    namespaceSecretBudget: options.namespaceSecretBudget ?? DEFAULT_NAMESPACE_SECRET_BUDGET,
  };
}

/** The settings for one object's namespace (`labels`: the namespace's, when known). */
export function verdictSettings(
  published: PublishedSettings,
  namespace: string,
  labels: Record<string, string> | undefined,
  defaults: Partial<Credentials>,
): VerdictSettings {
  const scope = defaultCredentialsScope(published.defaultCredentials);
  const allowed = controlPlaneAllowList(
    published.allowedControlPlaneUrls.join(','),
    published.defaultControlPlaneUrl ?? defaults.baseUrl,
  );
  return {
    defaultCredentialsScope: scope.decisionFor(namespace, labels),
    credentialsPolicy: credentialsPolicy(defaults, allowed),
    objectSecretBudget: published.objectSecretBudget,
  };
}
