/**
 * What the process checks before it starts the operator, so a wrong set-up ends in one line that names
 * the cause and the fix (and a non-zero exit) instead of a Node.js stack trace or a crash loop of
 * retries: the kubeconfig, then one request that proves the API server answers, accepts the
 * credentials and serves the CRDs.
 */
import { existsSync } from 'node:fs';
import { GROUP, VERSION } from './api/group.ts';
import { defaultKubeAccess, type KubeAccess } from './kube/access.ts';
import { KubeApiError, NotFoundError } from './kube/errors.ts';
import { KubeconfigError, kubeconfigPaths } from './kube/kubeconfig.ts';
import { kubeRequest } from './kube/request.ts';

/** A start-up failure whose message is the whole story: cause, then fix. */
export class StartupError extends Error {}

/** The cluster as kubectl finds it (KUBECONFIG, ~/.kube/config, in-cluster), with its failures named. */
export function loadKubeAccess(env: NodeJS.ProcessEnv): KubeAccess {
  const missing = kubeconfigPaths(env).filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new StartupError(
      `KUBECONFIG names ${missing.join(', ')}, which does not exist: point KUBECONFIG at a kubeconfig file, or unset it to use ~/.kube/config or the in-cluster service account`,
    );
  }
  try {
    return defaultKubeAccess(env);
  } catch (err) {
    if (!(err instanceof KubeconfigError)) throw err;
    const fix = env.KUBECONFIG
      ? 'fix the file KUBECONFIG names, or unset it to use ~/.kube/config or the in-cluster service account'
      : 'set KUBECONFIG, write ~/.kube/config, or run in a pod with a service account';
    throw new StartupError(`cannot load the kubeconfig (${err.message}): ${fix}`);
  }
}

const CHECK_TIMEOUT_MS = 10_000;

/**
 * One discovery request for the API group: reachable, authenticated, CRDs installed. Its deadline is the
 * request's own, so a silent server is named as one (a signal's would read as a pass's deadline).
 */
export async function checkApiServer(access: KubeAccess, timeoutMs = CHECK_TIMEOUT_MS): Promise<void> {
  const { server } = access;
  try {
    await kubeRequest(access, { method: 'GET', path: `/apis/${GROUP}/${VERSION}`, deadlineMs: timeoutMs });
  } catch (err) {
    if (err instanceof NotFoundError) {
      throw new StartupError(
        `the API server at ${server} does not serve ${GROUP}/${VERSION}: install the CRDs first (kubectl apply --server-side -f crds/)`,
      );
    }
    if (err instanceof KubeApiError && (err.status === 401 || err.status === 403)) {
      throw new StartupError(
        `the API server at ${server} refused the credentials (HTTP ${err.status}: ${err.message}): check the user of the kubeconfig's current context, or the pod's service account`,
      );
    }
    if (err instanceof KubeApiError) {
      throw new StartupError(
        `the API server at ${server} answered HTTP ${err.status} (${err.message}): check the server's health, then start again`,
      );
    }
    throw new StartupError(
      `cannot reach the Kubernetes API server at ${server} (${networkCause(err)}): check that it runs and that the kubeconfig's current context points at it`,
    );
  }
}

/** The innermost reason of a failed fetch: ECONNREFUSED, ENOTFOUND, a certificate error, a timeout. */
function networkCause(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${code}: ${cause.message}`
      : cause.message;
  }
  return String(cause);
}
