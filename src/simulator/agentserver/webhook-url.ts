/**
 * The `webhooks.url` rules a webhook URL must pass when a run is created. No `webhooks` configuration
 * means no rules. Each refusal names the rule that refused.
 */
import { DEFAULT_MAX_URL_LENGTH, type WebhooksConfig } from './config.ts';

/** Returns why the URL is refused, or undefined when it is accepted. */
export function refuseWebhookUrl(url: string, webhooks: WebhooksConfig | undefined): string | undefined {
  if (!webhooks) return undefined;
  const policy = webhooks.url ?? {};
  const maxLength = policy.max_url_length ?? DEFAULT_MAX_URL_LENGTH;
  if (url.length > maxLength) {
    return `Webhook URL too long: ${url.length} characters exceed webhooks.url.max_url_length (${maxLength})`;
  }
  // A relative URL is a loopback call into the deployment's own server.
  if (url.startsWith('/')) {
    return policy.disable_loopback
      ? 'Loopback webhooks are disabled (webhooks.url.disable_loopback)'
      : undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Invalid webhook URL';
  }
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return `Webhook URL scheme ${scheme} is not http or https`;
  if (policy.require_https && scheme !== 'https') {
    return 'Webhook must use https (webhooks.url.require_https)';
  }
  if (policy.allowed_ports && policy.allowed_ports.length > 0) {
    const port = parsed.port === '' ? (scheme === 'https' ? 443 : 80) : Number(parsed.port);
    if (!policy.allowed_ports.includes(port)) {
      return `Webhook port ${port} not allowed (webhooks.url.allowed_ports)`;
    }
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '') return 'Invalid webhook hostname';
  const domains = policy.allowed_domains ?? [];
  if (domains.length > 0 && !domains.some((pattern) => hostMatches(host, pattern))) {
    return `Webhook domain ${host} not allowed (webhooks.url.allowed_domains)`;
  }
  return undefined;
}

/** `*.example.com` matches any subdomain of example.com, not example.com itself. */
function hostMatches(host: string, pattern: string): boolean {
  const wanted = pattern.trim().toLowerCase();
  if (wanted.startsWith('*.')) return host.endsWith(`.${wanted.slice(2)}`);
  return host === wanted;
}
