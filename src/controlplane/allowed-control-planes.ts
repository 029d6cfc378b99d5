/**
 * Which control planes a namespace's own credentials may talk to: base URLs the administrator lists
 * (--allowed-control-plane-urls). A namespace user chooses a credentials Secret's `baseUrl`, so without
 * this list any of them could point the controller (its memory, workers and name claims) at a server of
 * their choosing. The default credentials' URL is always allowed; with no list it is the only one.
 *
 * An entry is an absolute http(s) URL. Scheme, host and port must match exactly (an entry without a port
 * means the scheme's default port); an entry with a path allows that path and the paths below it,
 * compared on the decoded path after the URL parser has resolved dot segments. A path that a gateway
 * could read differently from us is refused, in an entry and in a baseUrl alike: an encoded separator
 * (%2f, %5c), an encoded dot (%2e), an encoded percent (%25, decoded twice), a `;` (path parameters,
 * which some servers strip: `..;/`) or a control character. Otherwise `/cp/..%2fadmin` reads as below
 * `/cp` here and as `/admin` behind a gateway that decodes before routing.
 */

export interface ControlPlaneAllowList {
  /** The entries, normalised, the default credentials' URL first when there is one. */
  readonly entries: readonly string[];
  allows(baseUrl: string): boolean;
  /** Why this baseUrl is not allowed, naming the rule; undefined when it is. */
  refusal(baseUrl: string): string | undefined;
}

export class ControlPlaneAllowListError extends Error {}

export const ALLOWED_CONTROL_PLANES_SETTING = '--allowed-control-plane-urls (ALLOWED_CONTROL_PLANE_URLS)';

interface Entry {
  origin: string;
  /** Decoded, without a trailing slash; '' for the root. */
  path: string;
}

/** Percent-encodings a gateway may decode into a separator, a dot, a percent or a path parameter, and control characters. */
const AMBIGUOUS_ENCODING = /%(2f|5c|2e|25|3b|[01][0-9a-f]|7f)/i;

/** Why the path (as the URL parser serialises it) is refused, or its decoded form. */
function decodedPath(pathname: string): { path: string } | { refused: string } {
  const encoded = AMBIGUOUS_ENCODING.exec(pathname)?.[0];
  if (encoded) {
    return {
      refused: `its path carries ${encoded}, an encoded separator, dot, percent, ';' or control character, which a gateway may decode into another path`,
    };
  }
  if (pathname.includes(';')) {
    return {
      refused: "its path carries ';' (a path parameter, which some servers strip, so ..;/ climbs out)",
    };
  }
  try {
    return { path: decodeURIComponent(pathname).replace(/\/+$/, '') };
  } catch {
    return { refused: 'its path carries a malformed percent-encoding' };
  }
}

/** URL's origin already drops a scheme's default port, so `https://a` and `https://a:443` are one origin. */
function entryOf(url: URL): Entry | { refused: string } {
  const decoded = decodedPath(url.pathname);
  return 'refused' in decoded ? decoded : { origin: url.origin, path: decoded.path };
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
  const entry = entryOf(url);
  if ('refused' in entry) throw refuse(entry.refused);
  return entry;
}

/** The default credentials' URL: the same path rule, named as CONTROL_PLANE_URL. */
function defaultEntry(raw: string): Entry {
  const entry = entryOf(new URL(raw));
  if ('refused' in entry)
    throw new ControlPlaneAllowListError(`CONTROL_PLANE_URL ${raw} is refused: ${entry.refused}`);
  return entry;
}

const format = (e: Entry) => `${e.origin}${e.path}`;

/**
 * The administrator's list (comma-separated) plus the default credentials' URL. Throws
 * ControlPlaneAllowListError naming the entry that breaks a rule.
 */
export function controlPlaneAllowList(listed: string, defaultUrl: string | undefined): ControlPlaneAllowList {
  const entries = [
    ...(defaultUrl ? [defaultEntry(defaultUrl)] : []),
    ...listed
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(parseEntry),
  ];
  const refusal = (baseUrl: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      return 'it is not an absolute URL';
    }
    const target = entryOf(url);
    if ('refused' in target) return target.refused;
    const listedHere = entries.some(
      (e) =>
        e.origin === target.origin &&
        (e.path === '' || target.path === e.path || target.path.startsWith(`${e.path}/`)),
    );
    return listedHere ? undefined : 'it is not among the control planes the administrator allows';
  };
  return {
    entries: [...new Set(entries.map(format))],
    refusal,
    allows: (baseUrl) => refusal(baseUrl) === undefined,
  };
}
