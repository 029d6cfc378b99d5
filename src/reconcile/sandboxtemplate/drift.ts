/**
 * Drift between what a SandboxTemplate's spec states and the template observed: one entry per differing
 * field, spec value against observed value. Fields the spec leaves out are not compared; quantities are
 * compared as amounts (`1Gi` equals `1024Mi`), lists of hosts, paths and header names as sets (header
 * names case-insensitively), volume mounts as a set, proxy rules by name (the spec's list is the whole
 * set: a rule the spec does not list is drift).
 */
import type { Drift, ObservedTemplate, SandboxTemplateSpec } from '../../api/sandboxtemplate.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { sameQuantity } from '../../translate/quantity.ts';

const ABSENT = '(absent)';
const RESOURCE_KEYS = ['cpu', 'memory', 'storage'] as const;

/** What drift is judged against: the observed shape plus the template's registry. */
export type ObservedForDrift = ObservedTemplate & { registryName?: string | undefined };

export function templateDrift(spec: SandboxTemplateSpec, observed: ObservedForDrift): Drift[] {
  const drift: Drift[] = [];
  const differ = (field: string, expected: string, seen: string) =>
    drift.push({ field, expected, observed: seen });

  if (spec.image !== undefined && spec.image !== observed.image) {
    differ('image', spec.image, observed.image ?? ABSENT);
  }
  for (const key of RESOURCE_KEYS) {
    const want = spec.resources?.[key];
    if (want === undefined) continue;
    const seen = observed.resources?.[key];
    if (seen === undefined || !sameQuantity(want, seen))
      differ(`resources.${key}`, String(want), seen ?? ABSENT);
  }
  if (spec.volumeMounts !== undefined) {
    const render = (mounts: readonly { volumeName: string; mountPath: string }[] | undefined) =>
      setText((mounts ?? []).map((m) => `${m.volumeName}:${m.mountPath}`));
    const want = render(spec.volumeMounts);
    const seen = render(observed.volumeMounts);
    if (want !== seen) differ('volumeMounts', want, seen);
  }
  if (spec.noProxy !== undefined) {
    const want = setText(spec.noProxy);
    const seen = setText(observed.noProxy ?? []);
    if (want !== seen) differ('noProxy', want, seen);
  }
  if (spec.proxyRules !== undefined)
    drift.push(...proxyRuleDrift(spec.proxyRules, observed.proxyRules ?? []));
  if (spec.registryName !== undefined && spec.registryName !== observed.registryName) {
    differ('registryName', spec.registryName, observed.registryName ?? ABSENT);
  }
  return drift;
}

type SpecRule = NonNullable<SandboxTemplateSpec['proxyRules']>[number];
type SeenRule = NonNullable<ObservedTemplate['proxyRules']>[number];

function proxyRuleDrift(want: readonly SpecRule[], seen: readonly SeenRule[]): Drift[] {
  const drift: Drift[] = [];
  const seenByName = new Map(seen.map((r) => [r.name, r]));
  for (const rule of want) {
    const field = `proxyRules[${rule.name}]`;
    const other = seenByName.get(rule.name);
    if (!other) {
      drift.push({ field, expected: 'present', observed: ABSENT });
      continue;
    }
    const lists: [string, readonly string[] | undefined, readonly string[] | undefined][] = [
      ['matchHosts', rule.matchHosts, other.matchHosts],
      ['matchPaths', rule.matchPaths, other.matchPaths],
      [
        'injectHeaderNames',
        rule.injectHeaderNames?.map((n) => n.toLowerCase()),
        other.injectedHeaderNames?.map((n) => n.toLowerCase()),
      ],
    ];
    for (const [name, a, b] of lists) {
      if (a === undefined) continue;
      const expected = setText(a);
      const observed = setText(b ?? []);
      if (expected !== observed) drift.push({ field: `${field}.${name}`, expected, observed });
    }
    if (rule.enabled !== undefined && rule.enabled !== (other.enabled ?? false)) {
      drift.push({
        field: `${field}.enabled`,
        expected: String(rule.enabled),
        observed: other.enabled === undefined ? ABSENT : String(other.enabled),
      });
    }
  }
  const wanted = new Set(want.map((r) => r.name));
  for (const r of seen) {
    if (!wanted.has(r.name))
      drift.push({ field: `proxyRules[${r.name}]`, expected: ABSENT, observed: 'present' });
  }
  return drift;
}

/** A list as a set, in a stable text form: sorted, de-duplicated, comma-separated; `[]` when empty. */
function setText(items: readonly string[]): string {
  const sorted = [...new Set(items)].sort();
  return sorted.length ? sorted.join(', ') : '[]';
}

/** Observed values are the platform's text: each cleaned and cut before a condition quotes it. */
const MAX_OBSERVED_CHARS = 200;

/** One line naming every drifted field, for the condition message and the event. */
export function describeDrift(drift: readonly Drift[]): string {
  return drift
    .map(
      (d) =>
        `${cleanPeerText(d.field, MAX_OBSERVED_CHARS)}: spec ${d.expected}, observed ${cleanPeerText(d.observed, MAX_OBSERVED_CHARS)}`,
    )
    .join('; ');
}
