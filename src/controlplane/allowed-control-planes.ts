/**
 * Which control planes a namespace's own credentials may talk to: base URLs the administrator lists
 * (--allowed-control-plane-urls). A namespace user chooses a credentials Secret's `baseUrl`, so without
 * this list any of them could point the controller (its memory, workers and name claims) at a server of
 * their choosing. The default credentials' URL is always allowed; with no list it is the only one.
 *
 * An entry is an absolute http(s) URL prefix, under lib/url-prefixes.ts's rules (exact scheme, host and
 * port; a path allows what is below it; no path a gateway could read as another).
 */

import {
  formatPrefix,
  parseUrlPrefix,
  prefixOf,
  prefixRefusal,
  splitList,
  type UrlPrefix,
  UrlPrefixError,
} from '../lib/url-prefixes.ts';

export interface ControlPlaneAllowList {
  /** The entries, normalised, the default credentials' URL first when there is one. */
  readonly entries: readonly string[];
  allows(baseUrl: string): boolean;
  /** Why this baseUrl is not allowed, naming the rule; undefined when it is. */
  refusal(baseUrl: string): string | undefined;
}

export class ControlPlaneAllowListError extends Error {}

export const ALLOWED_CONTROL_PLANES_SETTING = '--allowed-control-plane-urls (ALLOWED_CONTROL_PLANE_URLS)';

function parseEntry(raw: string): UrlPrefix {
  try {
    return parseUrlPrefix(raw);
  } catch (err) {
    if (!(err instanceof UrlPrefixError)) throw err;
    throw new ControlPlaneAllowListError(`"${raw}" is not an allowed control-plane URL: ${err.message}`);
  }
}

/** The default credentials' URL: the same path rule, named as CONTROL_PLANE_URL. */
function defaultEntry(raw: string): UrlPrefix {
  const entry = prefixOf(new URL(raw));
  if ('refused' in entry)
    throw new ControlPlaneAllowListError(`CONTROL_PLANE_URL ${raw} is refused: ${entry.refused}`);
  return entry;
}

/**
 * The administrator's list (comma-separated) plus the default credentials' URL. Throws
 * ControlPlaneAllowListError naming the entry that breaks a rule.
 */
export function controlPlaneAllowList(listed: string, defaultUrl: string | undefined): ControlPlaneAllowList {
  const entries = [...(defaultUrl ? [defaultEntry(defaultUrl)] : []), ...splitList(listed).map(parseEntry)];
  const refusal = (baseUrl: string): string | undefined =>
    prefixRefusal(entries, baseUrl, 'it is not among the control planes the administrator allows');
  return {
    entries: [...new Set(entries.map(formatPrefix))],
    refusal,
    allows: (baseUrl) => refusal(baseUrl) === undefined,
  };
}
