/**
 * The deployment's URL (status.url, the platform's custom_url, which spec.sourceConfig.customUrl sets
 * for external_image) taken apart before any call: the verification's paths (/ok, /threads...) are
 * appended to its path, so a `?` or `#` in it would turn them into a query or a fragment and leave the
 * path the URL's author chose. Such a URL is refused, as is one with another scheme or with credentials in it.
 */

export interface AgentServerUrl {
  /** scheme://host[:port] */
  origin: string;
  /** The URL's path without trailing slashes ('' for the root); the calls' paths go after it. */
  basePath: string;
}

const FIELD = 'spec.sourceConfig.customUrl';

/** The URL's parts, or the rule it breaks (a sentence naming the field). */
export function parseAgentServerUrl(url: string): AgentServerUrl | { problem: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: `${FIELD} must be an absolute http(s) URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { problem: `${FIELD} must be an http(s) URL, not ${parsed.protocol.replace(/:$/, '')}` };
  }
  if (url.includes('?') || url.includes('#')) {
    return {
      problem: `${FIELD} must not have a query (?) or a fragment (#): the verification's paths (/ok, /threads) are appended to its path`,
    };
  }
  if (parsed.username || parsed.password) {
    return { problem: `${FIELD} must not carry credentials (user:password@)` };
  }
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}
