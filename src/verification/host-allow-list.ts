/**
 * Which agent-server hosts may receive the controller's own credentials (post-deploy verification calls
 * status.url with them). An entry is `host`, `host:port`, `*.domain` or `*.domain:port`: an entry with a
 * port allows that port only, one without allows any port; `*.domain` allows every subdomain of `domain`
 * (not `domain` itself). A namespace's own credentials are not limited by this list: they go to that
 * namespace's URLs.
 */

export interface HostAllowList {
  /** The entries, normalised (lower case, IPv6 in brackets), in the order given. */
  readonly entries: readonly string[];
  /** Whether a request to this URL may carry the controller's credentials; false for a URL that does not parse. */
  allows(url: string): boolean;
}

interface Entry {
  /** The host, or with `wildcard` the domain whose subdomains match. */
  host: string;
  wildcard: boolean;
  /** undefined: any port. */
  port: string | undefined;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

export class HostAllowListError extends Error {}

function parseEntry(raw: string): Entry {
  const wildcard = raw.startsWith('*.');
  const rest = wildcard ? raw.slice(2) : raw;
  const refuse = (rule: string) => new HostAllowListError(`"${raw}" is not an allowed-host entry: ${rule}`);
  if (rest === '' || /[/?#@\s*]/.test(rest)) {
    throw refuse('write host, host:port, *.domain or *.domain:port (no scheme, path or other wildcard)');
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
  return { host: url.hostname, wildcard, port: written === undefined ? undefined : String(Number(written)) };
}

const format = (e: Entry) => `${e.wildcard ? '*.' : ''}${e.host}${e.port === undefined ? '' : `:${e.port}`}`;

function allowListOf(entries: Entry[]): HostAllowList {
  return {
    entries: entries.map(format),
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
          (e.port === undefined || e.port === port) &&
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

const isIp = (hostname: string) => hostname.startsWith('[') || /^\d+(\.\d+){3}$/.test(hostname);

/**
 * The default: the control plane's own host (with its port when the URL names one) and the subdomains of
 * its domain (`api.example.com` gives `api.example.com` and `*.example.com`; `example.com` gives
 * `*.example.com` too). An IP address or a single-label host (`localhost`) gives itself only. No control
 * plane URL: an empty list (the controller's credentials go to no agent server).
 */
export function defaultHostAllowList(controlPlaneUrl: string | undefined): HostAllowList {
  if (!controlPlaneUrl) return allowListOf([]);
  const url = new URL(controlPlaneUrl);
  const host = url.hostname.replace(/\.$/, '');
  const entries: Entry[] = [{ host, wildcard: false, port: url.port || undefined }];
  const labels = host.split('.');
  if (!isIp(host) && labels.length >= 2) {
    const domain = labels.length === 2 ? host : labels.slice(1).join('.');
    entries.push({ host: domain, wildcard: true, port: undefined });
  }
  return allowListOf(entries);
}
