/**
 * URL prefixes an administrator allows (the control planes a namespace's credentials may name, the
 * analysis providers a namespace may call). An entry is an absolute http(s) URL. Scheme, host and port
 * must match exactly (an entry without a port means the scheme's default port); an entry with a path
 * allows that path and the paths below it, compared on the decoded path after the URL parser has
 * resolved dot segments. A path that a gateway could read differently from us is refused, in an entry
 * and in a target alike: an encoded separator (%2f, %5c), an encoded dot (%2e), an encoded percent (%25,
 * decoded twice), a `;` (path parameters, which some servers strip: `..;/`) or a control character.
 * Otherwise `/cp/..%2fadmin` reads as below `/cp` here and as `/admin` behind a gateway that decodes
 * before routing.
 */

export interface UrlPrefix {
  /** scheme://host[:port], the scheme's default port dropped (as URL.origin has it). */
  origin: string;
  /** Decoded, without a trailing slash; '' for the root. */
  path: string;
}

/** A URL that breaks an entry rule: the rule, in words. */
export class UrlPrefixError extends Error {}

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

/** The prefix a parsed URL stands for, or why its path is refused. */
export function prefixOf(url: URL): UrlPrefix | { refused: string } {
  const decoded = decodedPath(url.pathname);
  return 'refused' in decoded ? decoded : { origin: url.origin, path: decoded.path };
}

/** An administrator's entry; throws UrlPrefixError with the rule it breaks. */
export function parseUrlPrefix(raw: string): UrlPrefix {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlPrefixError(
      'write an absolute URL such as https://api.example.com or http://127.0.0.1:8080',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UrlPrefixError('the scheme must be https or http');
  }
  if (url.username || url.password) throw new UrlPrefixError('it must not carry a user or password');
  if (url.search || url.hash) throw new UrlPrefixError('it must not carry a query or fragment');
  const entry = prefixOf(url);
  if ('refused' in entry) throw new UrlPrefixError(entry.refused);
  return entry;
}

/** A comma-separated list of entries, blanks dropped (not parsed). */
export function splitList(listed: string): string[] {
  return listed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export const formatPrefix = (e: UrlPrefix) => `${e.origin}${e.path}`;

/** Why `target` is under none of `entries` (`unlisted` says so in the caller's words), or undefined. */
export function prefixRefusal(
  entries: readonly UrlPrefix[],
  target: string,
  unlisted: string,
): string | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'it is not an absolute URL';
  }
  const at = prefixOf(url);
  if ('refused' in at) return at.refused;
  const listed = entries.some(
    (e) =>
      e.origin === at.origin && (e.path === '' || at.path === e.path || at.path.startsWith(`${e.path}/`)),
  );
  return listed ? undefined : unlisted;
}
