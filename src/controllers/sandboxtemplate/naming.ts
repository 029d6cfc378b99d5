/**
 * Object names for imported templates: the template name as a DNS-1123 subdomain (what Kubernetes
 * accepts as a custom object's name), with a short hash of the template name added when two templates
 * map to the same name ("Python" and "python", "a_b" and "a-b").
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 253;

/** `My_Template.v2` -> `my-template.v2`; empty or symbol-only names become `template`. */
export function dnsSubdomain(text: string): string {
  const labels = text
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .split('.')
    .map((label) => label.replace(/-+/g, '-').replace(/^-|-$/g, ''))
    .filter(Boolean);
  const joined = labels
    .join('.')
    .slice(0, MAX_NAME)
    .replace(/[-.]+$/, '');
  return joined || 'template';
}

function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, MAX_NAME - suffix.length - 1).replace(/[-.]+$/, '')}-${suffix}`;
}

/** A name for `templateName` that is in neither `taken` set; deterministic for the same inputs. */
export function importedObjectName(templateName: string, taken: ReadonlySet<string>): string {
  const base = dnsSubdomain(templateName);
  if (!taken.has(base)) return base;
  const hash = createHash('sha256').update(templateName).digest('hex').slice(0, 6);
  let candidate = withSuffix(base, hash);
  for (let n = 2; taken.has(candidate); n++) candidate = withSuffix(base, `${hash}-${n}`);
  return candidate;
}
