/**
 * The chart's PrometheusRule and Grafana dashboard, rendered by helm: `promtool check rules` and
 * `promtool test rules` (test/alerts/promtool-tests.yaml: each alert fires, or not, on given series) on the
 * rules exactly as rendered, and every runbook_url landing on an entry of docs/troubleshooting.md.
 * promtool is built from the Go module proxy (scripts/promtool-binary.sh). test/metric-names.test.ts
 * checks the metrics they use against a running controller.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { Reason } from '../src/api/names.ts';
import { NOT_OBSERVED_REASON } from '../src/runtime/object-state.ts';
import { CHART, helm, parseDocuments, REPO, run } from './packaging-helpers.ts';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';
import { type Monitoring, renderMonitoring } from './support/monitoring.ts';

const HOME = /^home: (.+)$/m.exec(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))?.[1] as string;
const RUNBOOK = `${HOME}/blob/main/docs/troubleshooting.md`;
const TROUBLESHOOTING = readFileSync(join(REPO, 'docs/troubleshooting.md'), 'utf8');
/** GitHub's anchor of each heading of the page: its text in lower case, spaces to dashes. */
const ANCHORS = new Set(
  [...TROUBLESHOOTING.matchAll(/^#+ (.+)$/gm)].map((m) =>
    (m[1] as string)
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-'),
  ),
);

let promtool: string;
let monitoring: Monitoring;
let dir: string;

beforeAll(async () => {
  promtool = await goTool('promtool-binary.sh');
  monitoring = await renderMonitoring();
  dir = mkdtempSync(join(tmpdir(), 'alerts-'));
  writeFileSync(join(dir, 'rules.yaml'), yaml.dump({ groups: monitoring.groups }, { lineWidth: -1 }));
  copyFileSync(join(REPO, 'test/alerts/promtool-tests.yaml'), join(dir, 'promtool-tests.yaml'));
}, FIRST_BUILD_TIMEOUT_MS);

describe('the PrometheusRule', () => {
  it('passes promtool check rules', async () => {
    const result = await run(promtool, ['check', 'rules', 'rules.yaml'], { cwd: dir });
    expect(result.stderr + result.stdout).toContain('SUCCESS: 8 rules found');
    expect(result.code).toBe(0);
  });

  it('passes promtool test rules: each alert fires on its series and stays quiet on the others', async () => {
    const result = await run(promtool, ['test', 'rules', 'promtool-tests.yaml'], { cwd: dir });
    expect(result.stdout + result.stderr, 'promtool test rules').toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('tests every alert it has', () => {
    const tested = readFileSync(join(REPO, 'test/alerts/promtool-tests.yaml'), 'utf8');
    for (const rule of monitoring.rules) expect(tested).toContain(`alertname: ${rule.alert}`);
  });

  it('links each alert to a troubleshooting entry; the object alerts to the entry of any reason', () => {
    for (const rule of monitoring.rules) {
      const url = rule.annotations.runbook_url as string;
      expect(url.startsWith(`${RUNBOOK}#`), `${rule.alert}: ${url}`).toBe(true);
      const anchor = url.slice(RUNBOOK.length + 1);
      if (anchor === '{{ $labels.reason | toLower }}') {
        for (const reason of [...Object.values(Reason), NOT_OBSERVED_REASON]) {
          expect(ANCHORS, `docs/troubleshooting.md has no entry for ${reason}`).toContain(
            reason.toLowerCase(),
          );
        }
      } else {
        expect(ANCHORS, `${rule.alert} links #${anchor}`).toContain(anchor);
      }
    }
  });

  it('takes its runbook base URL, selector and delay from the values', async () => {
    const custom = await renderMonitoring([
      '--set',
      'metrics.prometheusRule.runbookBaseUrl=https://wiki.example.com/operators',
      '--set',
      'metrics.prometheusRule.selector=job="agd"',
      '--set',
      'metrics.prometheusRule.for=30m',
    ]);
    const stalled = custom.rules.find((r) => r.alert === 'AgentDeploymentObjectsStalled');
    expect(stalled?.annotations.runbook_url).toBe(
      'https://wiki.example.com/operators#{{ $labels.reason | toLower }}',
    );
    expect(stalled?.expr).toContain('agent_operator_objects_by_state{job="agd", state="stalled"}');
    expect(stalled?.for).toBe('30m');
  });
});

describe('the dashboard', () => {
  it('is a ConfigMap the Grafana sidecar loads, with a panel for each group of metrics', () => {
    const labels = monitoring.dashboardConfigMap.metadata.labels as Record<string, string>;
    expect(labels.grafana_dashboard).toBe('1');
    expect(monitoring.dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'Objects',
      'Reconciles (controller-runtime)',
      'Work queues',
      'Control plane and API server',
      'Process',
    ]);
    for (const panel of monitoring.dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
  });
});

describe('off by default', () => {
  it('renders neither the PrometheusRule nor the dashboard without being asked', async () => {
    const result = await helm(['template', 'ado', CHART, '--namespace', 'ops']);
    expect(result.code).toBe(0);
    const kinds = parseDocuments(result.stdout).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds.filter((k) => k.startsWith('PrometheusRule') || k.endsWith('-dashboard'))).toEqual([]);
  });
});
