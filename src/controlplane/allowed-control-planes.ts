/**
 * Which control planes a namespace's own credentials may talk to: base URLs the administrator lists
 * (--allowed-control-plane-urls). A namespace user chooses a credentials Secret's `baseUrl`, so without
 * this list any of them could point the controller (its memory, workers and name claims) at a server of
 * their choosing. The default credentials' URL is always allowed; with no list it is the only one.
 *
 * An entry is an absolute http(s) URL. Scheme, host and port must match exactly (an entry without a port
 * means the scheme's default port); an entry with a path allows that path and the paths below it.
 */

export interface ControlPlaneAllowList {
  /** The entries, normalised, the default credentials' URL first when there is one. */
  readonly entries: readonly string[];
  allows(baseUrl: string): boolean;
}

export class ControlPlaneAllowListError extends Error {}

export const ALLOWED_CONTROL_PLANES_SETTING = '--allowed-control-plane-urls (ALLOWED_CONTROL_PLANE_URLS)';

interface Entry {
  origin: string;
  /** Without a trailing slash; '' for the root. */
  path: string;
}

/** URL's origin already drops a scheme's default port, so `https://a` and `https://a:443` are one origin. */
function entryOf(url: URL): Entry {
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

function parseEntry(raw: string): Entry {
  const refuse = (rule: string) =>
    new ControlPlaneAllowListError(`"${raw}" is not an allowed control-plane URL: ${rule}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('write an absolute URL such as https://api.example.com or http://127.0.0.1:8080');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('the scheme must be https or http');
  if (url.username || url.password) throw refuse('it must not carry a user or password');
  if (url.search || url.hash) throw refuse('it must not carry a query or fragment');
  return entryOf(url);
}

const format = (e: Entry) => `${e.origin}${e.path}`;

/**
 * The administrator's list (comma-separated) plus the default credentials' URL. Throws
 * ControlPlaneAllowListError naming the entry that breaks a rule.
 */
export function controlPlaneAllowList(listed: string, defaultUrl: string | undefined): ControlPlaneAllowList {
  const entries = [
    ...(defaultUrl ? [entryOf(new URL(defaultUrl))] : []),
    ...listed
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(parseEntry),
  ];
  return {
    entries: [...new Set(entries.map(format))],
    allows(baseUrl) {
      let target: Entry;
      try {
        target = entryOf(new URL(baseUrl));
      } catch {
        return false;
      }
      return entries.some(
        (e) =>
          e.origin === target.origin &&
          (e.path === '' || target.path === e.path || target.path.startsWith(`${e.path}/`)),
      );
    },
  };
}
