/**
 * The chart's alerts and dashboard as rendered by helm (release "ado" in namespace "ops", as
 * test/alerts/promtool-tests.yaml expects), and the metric names their PromQL uses.
 */
import { expect } from 'vitest';
import { CHART, helm, type K8sObject, parseDocuments } from '../packaging-helpers.ts';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations: Record<string, string>;
}

export interface Dashboard {
  panels: { title: string; type: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
}

export interface Monitoring {
  objects: K8sObject[];
  groups: { name: string; rules: AlertRule[] }[];
  rules: AlertRule[];
  dashboard: Dashboard;
  dashboardConfigMap: K8sObject;
}

export async function renderMonitoring(extra: string[] = []): Promise<Monitoring> {
  const result = await helm([
    'template',
    'ado',
    CHART,
    '--namespace',
    'ops',
    '--set',
    'metrics.prometheusRule.enabled=true',
    '--set',
    'metrics.dashboard.enabled=true',
    ...extra,
  ]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const objects = parseDocuments(result.stdout);
  const rule = objects.find((o) => o.kind === 'PrometheusRule');
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard'));
  if (!rule || !configMap) throw new Error('the chart rendered no PrometheusRule or no dashboard ConfigMap');
  const groups = (rule.spec as { groups: Monitoring['groups'] }).groups;
  const data = configMap.data as Record<string, string>;
  return {
    objects,
    groups,
    rules: groups.flatMap((g) => g.rules),
    dashboard: JSON.parse(data['agent-deployment-operator.json'] ?? '') as Dashboard,
    dashboardConfigMap: configMap,
  };
}

/** Every PromQL expression of the rules and the dashboard (panel targets and template variables). */
export function expressions(m: Monitoring): string[] {
  const variables = m.dashboard.templating.list.flatMap((v) =>
    v.query === undefined ? [] : [typeof v.query === 'string' ? v.query : v.query.query],
  );
  return [
    ...m.rules.map((r) => r.expr),
    ...m.dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...variables,
  ];
}

/**
 * The metric names an expression selects: every name before a label selector (the chart writes every
 * metric with one, the job selector at least) and the metric of a Grafana label_values() query.
 */
export function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const selected = [...withoutStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g)].map(
    (m) => m[1] as string,
  );
  const labelValues = [...withoutStrings.matchAll(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,/g)].map(
    (m) => m[1] as string,
  );
  return [...selected, ...labelValues];
}

/** Series names of a Prometheus text exposition that have at least one sample. */
export function exposedNames(exposition: string): Set<string> {
  return new Set(
    exposition
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.split(/[{ ]/)[0] as string),
  );
}

/** `up` is Prometheus' own series about each scrape, never exposed by a target. */
const PROMETHEUS_OWN = new Set(['up']);

/** The names the expressions use that the exposition has no sample of. */
export function missingMetrics(exprs: readonly string[], exposed: ReadonlySet<string>): string[] {
  const used = new Set(exprs.flatMap(metricNames));
  return [...used].filter((name) => !PROMETHEUS_OWN.has(name) && !exposed.has(name)).sort();
}
