/**
 * Which agent-server hosts may receive the controller's own credentials (post-deploy verification calls
 * status.url with them). An entry is `host`, `host:port`, `*.domain` or `*.domain:port`, optionally
 * preceded by `https://` or `http://`. The scheme is part of the match: https unless the entry says
 * `http://`, so the key never travels in clear text by default. So is the port: an entry without one
 * means its scheme's default port (443, or 80). `*.domain` allows every subdomain of `domain` (not
 * `domain` itself), and only when the administrator acknowledges wildcards (config.ts). The list is
 * the second wall: the controller's key goes only to a URL the platform assigned (caller.ts).
 */

export interface HostAllowList {
  /** The entries, normalised (lower case, IPv6 in brackets), in the order given. */
  readonly entries: readonly string[];
  /** The wildcard entries (`*.domain`), normalised: config.ts takes them only when acknowledged. */
  readonly wildcards: readonly string[];
  /** Whether a request to this URL may carry the controller's credentials; false for a URL that does not parse. */
  allows(url: string): boolean;
}

interface Entry {
  scheme: 'https:' | 'http:';
  /** The host, or with `wildcard` the domain whose subdomains match. */
  host: string;
  wildcard: boolean;
  /** Always set: the scheme's default when the entry names none. */
  port: string;
}

const DEFAULT_PORTS: Record<string, string> & Record<'http:' | 'https:', string> = {
  'http:': '80',
  'https:': '443',
};

export class HostAllowListError extends Error {}

function parseEntry(raw: string): Entry {
  const schemed = /^(https?):\/\/(.*)$/.exec(raw);
  const scheme = schemed?.[1] === 'http' ? 'http:' : 'https:';
  const hostPart = schemed ? (schemed[2] as string) : raw;
  const wildcard = hostPart.startsWith('*.');
  const rest = wildcard ? hostPart.slice(2) : hostPart;
  const refuse = (rule: string) => new HostAllowListError(`"${raw}" is not an allowed-host entry: ${rule}`);
  if (rest === '' || /[/?#@\s*]/.test(rest)) {
    throw refuse(
      'write host, host:port, *.domain or *.domain:port, optionally after https:// or http:// (no other scheme, no path, no other wildcard)',
    );
  }
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw refuse('the host does not parse');
  }
  // `host:80` parses with the port dropped (http's default): keep what was written.
  const written = /:(\d+)$/.exec(rest)?.[1];
  if (wildcard && !url.hostname.includes('.'))
    throw refuse('a wildcard needs a domain of two labels or more');
  const port = written === undefined ? DEFAULT_PORTS[scheme] : String(Number(written));
  return { scheme, host: url.hostname, wildcard, port };
}

const format = (e: Entry) =>
  `${e.scheme}//${e.wildcard ? '*.' : ''}${e.host}${e.port === DEFAULT_PORTS[e.scheme] ? '' : `:${e.port}`}`;

function allowListOf(entries: Entry[]): HostAllowList {
  return {
    entries: entries.map(format),
    wildcards: entries.filter((e) => e.wildcard).map(format),
    allows(target) {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return false;
      }
      const port = url.port || DEFAULT_PORTS[url.protocol];
      if (port === undefined) return false;
      const host = url.hostname.replace(/\.$/, '');
      return entries.some(
        (e) =>
          e.scheme === url.protocol &&
          e.port === port &&
          (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host),
      );
    },
  };
}

/** A comma-separated list; throws HostAllowListError naming the entry that breaks the rule. */
export function parseHostAllowList(value: string): HostAllowList {
  const raw = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return allowListOf(raw.map(parseEntry));
}

/**
 * The default, under the control plane's own scheme: exactly its host (and port), nothing derived from it
 * (`https://api.example.com` gives `https://api.example.com` only). A wildcard guessed from the host's
 * domain can climb to a suffix others publish under (`acme.co.uk` to `*.co.uk`, a cloud API host to its
 * provider's shared domain): wildcards come only from the administrator's list. No control plane URL: an
 * empty list (the controller's credentials go to no agent server).
 */
export function defaultHostAllowList(controlPlaneUrl: string | undefined): HostAllowList {
  if (!controlPlaneUrl) return allowListOf([]);
  const url = new URL(controlPlaneUrl);
  const scheme = url.protocol === 'http:' ? 'http:' : 'https:';
  const host = url.hostname.replace(/\.$/, '');
  return allowListOf([{ scheme, host, wildcard: false, port: url.port || DEFAULT_PORTS[scheme] }]);
}
