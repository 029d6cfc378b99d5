/**
 * Issue 52, hole 9: the chart ships an optional NetworkPolicy around the controller's pods (values
 * `networkPolicy`, off by default): egress only to the API server, the control plane, the agent servers,
 * the analysis providers and DNS; ingress only on the metrics port and the webhook's. Rendered with `helm template` and
 * applied with a server-side dry run against the run's API server.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART, helm, type K8sObject, parseDocuments } from './packaging-helpers.ts';
import { createTestNamespace, kubectl } from './support/kube.ts';

const API_SERVER = [{ ipBlock: { cidr: '10.96.0.1/32' } }, { ipBlock: { cidr: '172.18.0.2/32' } }];
const CONTROL_PLANE = [{ ipBlock: { cidr: '203.0.113.0/24' } }];
const AGENT_SERVERS = [
  {
    ipBlock: {
      cidr: '0.0.0.0/0',
      except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'],
    },
  },
];
const ANALYSIS = [{ ipBlock: { cidr: '198.51.100.7/32' } }];
const PROMETHEUS = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];

const addresses = [
  '--set',
  'networkPolicy.enabled=true',
  '--set-json',
  `networkPolicy.egress.apiServer.to=${JSON.stringify(API_SERVER)}`,
  '--set-json',
  `networkPolicy.egress.controlPlane.to=${JSON.stringify(CONTROL_PLANE)}`,
];

let ns: string;
beforeAll(async () => {
  ns = await createTestNamespace('chart-netpol');
});

async function render(args: string[]): Promise<{ text: string; objects: K8sObject[] }> {
  const result = await helm(['template', 'np', CHART, '--namespace', ns, ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { text: result.stdout, objects: parseDocuments(result.stdout) };
}

interface Policy {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: { ports: { port: string }[]; from?: unknown[] }[];
    egress: { to?: unknown[]; ports: { port: number; protocol: string }[] }[];
  };
}

const policyOf = (objects: K8sObject[]) => {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  expect(policies).toHaveLength(1);
  return policies[0] as unknown as K8sObject & Policy;
};

describe('hole 9: the chart ships an optional NetworkPolicy', () => {
  it('off by default: none rendered', async () => {
    const { objects } = await render([]);
    expect(objects.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  it("enabled: around the controller's pods, out to what is listed only, in on metrics and the webhook", async () => {
    const { text, objects } = await render([
      ...addresses,
      '--set-json',
      `networkPolicy.egress.agentServers.to=${JSON.stringify(AGENT_SERVERS)}`,
      '--set-json',
      `networkPolicy.egress.analysis.to=${JSON.stringify(ANALYSIS)}`,
      '--set-json',
      `networkPolicy.ingress.metrics.from=${JSON.stringify(PROMETHEUS)}`,
      '--set',
      'webhook.enabled=true',
    ]);
    const policy = policyOf(objects);
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: {
        selector: { matchLabels: Record<string, string> };
        template: { spec: { containers: { ports: { name: string }[] }[] } };
      };
    };
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    // Ingress names the container's ports: metrics (with its sources) and the webhook (from anywhere).
    const portNames = deployment.spec.template.spec.containers[0]?.ports.map((p) => p.name);
    expect(policy.spec.ingress).toEqual([
      { ports: [{ port: 'http-metrics', protocol: 'TCP' }], from: PROMETHEUS },
      { ports: [{ port: 'webhook', protocol: 'TCP' }] },
    ]);
    for (const rule of policy.spec.ingress) expect(portNames).toContain(rule.ports[0]?.port);
    // Every egress rule names its peers: none allows every destination.
    expect(policy.spec.egress.map((r) => r.to)).toEqual([
      API_SERVER,
      CONTROL_PLANE,
      AGENT_SERVERS,
      ANALYSIS,
      [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ],
    ]);
    // Analysis providers: HTTPS and Prometheus' port unless the values say otherwise.
    expect(policy.spec.egress[3]?.ports).toEqual([
      { port: 443, protocol: 'TCP' },
      { port: 9090, protocol: 'TCP' },
    ]);
    expect(policy.spec.egress[4]?.ports).toEqual([
      { port: 53, protocol: 'UDP' },
      { port: 53, protocol: 'TCP' },
    ]);
    // The API server accepts it.
    const applied = await kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], {
      input: text.split('\n---\n').find((d) => d.includes('kind: NetworkPolicy')) ?? '',
    });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  it('no agent servers or analysis providers listed: no rule for them (never one without peers), no webhook rule without the webhook', async () => {
    const policy = policyOf((await render(addresses)).objects);
    expect(policy.spec.egress).toHaveLength(3);
    for (const rule of policy.spec.egress) expect(rule.to?.length).toBeGreaterThan(0);
    expect(policy.spec.ingress).toEqual([{ ports: [{ port: 'http-metrics', protocol: 'TCP' }] }]);
  });

  it.each<[string, string[], string]>([
    [
      'enabled with no API server',
      ['--set', 'networkPolicy.enabled=true'],
      "at '/networkPolicy/egress/apiServer/to'",
    ],
    ['a boolean that is not', ['--set', 'networkPolicy.enabled=maybe'], "at '/networkPolicy/enabled'"],
    [
      'a protocol NetworkPolicy has not',
      [...addresses, '--set', 'networkPolicy.egress.dns.ports[0].protocol=ICMP'],
      "at '/networkPolicy/egress/dns/ports/0/protocol'",
    ],
    [
      'a host name as a peer (a NetworkPolicy names addresses)',
      ['--set', 'networkPolicy.egress.apiServer.to[0].host=api.example.com'],
      "at '/networkPolicy/egress/apiServer/to/0'",
    ],
    // Past the schema, the template still refuses a policy that would cut the controller off.
    [
      'enabled with no API server, the schema skipped',
      ['--skip-schema-validation', '--set', 'networkPolicy.enabled=true'],
      'networkPolicy.enabled needs networkPolicy.egress.apiServer.to and networkPolicy.egress.controlPlane.to',
    ],
  ])('refuses %s', async (_case, args, message) => {
    const result = await helm(['template', 'np', CHART, '--namespace', ns, ...args]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
