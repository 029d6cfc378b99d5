/**
 * Where an analysis provider may send a request: URL prefixes the administrator lists
 * (--analysis-allowed-urls), under lib/url-prefixes.ts's rules. A namespace writes its providers' URLs, so
 * without the list it could point the controller at any service the controller's pod reaches (the
 * cluster network, the node's metadata service). The default is no entry: every provider URL is refused,
 * naming the setting.
 *
 * An allowed prefix is not enough to reach an internal address (loopback, link-local, private ...:
 * verification/internal-addresses.ts): the connections check the address they actually connect to. An
 * entry reaches an internal address only when it names an internal host itself: by its address
 * (`http://10.0.3.4:9090`, `http://127.0.0.1:9090`), or by a name only a cluster or a host resolves
 * (`localhost`, a single label, or a name ending in .svc, .svc.<cluster domain>, .cluster.local, .local
 * or .internal: `http://prometheus.monitoring.svc:9090`). Any other name is reached at public addresses
 * only, so a public name whose DNS answers 10.0.0.1 (a rebinding) reaches nothing inside.
 */
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import {
  formatPrefix,
  parseUrlPrefix,
  prefixRefusal,
  splitList,
  UrlPrefixError,
} from '../../lib/url-prefixes.ts';
import { addressGuardedAgent, type GuardedAgentOptions } from '../../verification/guarded-agent.ts';
import {
  InternalAddressListError,
  type InternalAddressPolicy,
  internalAddressPolicy,
} from '../../verification/internal-addresses.ts';

export const ANALYSIS_ALLOWED_URLS_SETTING = '--analysis-allowed-urls (ANALYSIS_ALLOWED_URLS)';

export class AnalysisUrlListError extends Error {}

export interface AnalysisUrlPolicy {
  /** The entries, normalised. */
  readonly entries: readonly string[];
  /** Why a provider may not call this URL, naming the setting; undefined when it may. */
  refusal(url: string): string | undefined;
  /** The internal hosts and addresses the entries name themselves: the only internal ones reached. */
  readonly internal: InternalAddressPolicy;
}

/** Names only a cluster or a host resolves: an entry naming one means an internal address. */
const INTERNAL_NAME = /(^localhost$|^[^.]+$|\.svc$|\.svc\.|\.cluster\.local$|\.local$|\.internal$)/;

/** Whether the entry's host (URL.hostname) names an internal host: an IP address, or an internal name. */
function namesInternalHost(hostname: string): boolean {
  return isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 || INTERNAL_NAME.test(hostname);
}

/** The administrator's comma-separated list; throws AnalysisUrlListError naming the entry that breaks a rule. */
export function analysisUrlPolicy(listed = ''): AnalysisUrlPolicy {
  const raw = splitList(listed);
  const entries = raw.map((entry) => {
    try {
      return parseUrlPrefix(entry);
    } catch (err) {
      if (!(err instanceof UrlPrefixError)) throw err;
      throw new AnalysisUrlListError(`"${entry}" is not an allowed analysis URL: ${err.message}`);
    }
  });
  const hosts = [...new Set(entries.map((e) => new URL(e.origin).hostname))].filter(namesInternalHost);
  const formatted = [...new Set(entries.map(formatPrefix))];
  let internal: InternalAddressPolicy;
  try {
    internal = internalAddressPolicy(hosts.join(','));
  } catch (err) {
    if (!(err instanceof InternalAddressListError)) throw err;
    throw new AnalysisUrlListError(`an entry's host is not a host name or an address: ${err.message}`);
  }
  return {
    entries: formatted,
    internal,
    refusal(url) {
      if (entries.length === 0) {
        return `no provider URL is allowed: the administrator allows URL prefixes with ${ANALYSIS_ALLOWED_URLS_SETTING}, which is empty; no request was made`;
      }
      const why = prefixRefusal(
        entries,
        url,
        `it is not under a URL prefix the administrator allows (${ANALYSIS_ALLOWED_URLS_SETTING}: ${formatted.join(', ')})`,
      );
      if (why) return `${why}; no request was made`;
      const parsed = new URL(url);
      if (parsed.username || parsed.password)
        return 'it must not carry a user or password; no request was made';
      return undefined;
    },
  };
}

/** Connections for provider requests: every address they connect to is checked (guarded-agent.ts). */
export function analysisDispatcher(
  policy: AnalysisUrlPolicy,
  resolve?: GuardedAgentOptions['resolve'],
): Dispatcher {
  return addressGuardedAgent(policy.internal, {
    connections: 16,
    keepAliveTimeout: 30_000,
    connectTimeout: 5_000,
    ...(resolve ? { resolve } : {}),
  });
}
