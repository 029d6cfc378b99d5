/**
 * The Helm chart against the run's API server: lint and schema, rendering (default and namespaced) applied
 * with a server-side dry run, a real install and upgrade, and the RBAC it grants compared with the one
 * list the controller's code uses (scripts/rbac-rules.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { aggregateLabel, USER_ROLES } from '../scripts/rbac-rules.ts';
import { CRD_KEEP_ANNOTATIONS } from '../src/api/crds.ts';
import { loadConfig } from '../src/config.ts';
import { OPTIONS } from '../src/options.ts';
import {
  CHART,
  excessPermissions,
  helm,
  isAggregatedRole,
  type K8sObject,
  parseDocuments,
  REPO,
  run,
} from './packaging-helpers.ts';
import { createTestNamespace, kubectl } from './support/kube.ts';

const render = async (release: string, namespace: string, args: string[] = []) => {
  const result = await helm(['template', release, CHART, '--namespace', namespace, ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { text: result.stdout, objects: parseDocuments(result.stdout) };
};

const find = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

const dryRunApply = (text: string) =>
  kubectl(['apply', '--server-side', '--dry-run=server', '--force-conflicts', '-f', '-'], { input: text });

const canI = async (sa: string, verb: string, resource: string, namespace: string, subresource?: string) => {
  const sub = subresource ? [`--subresource=${subresource}`] : [];
  const result = await kubectl([
    'auth',
    'can-i',
    verb,
    resource,
    ...sub,
    '--namespace',
    namespace,
    '--as',
    sa,
  ]);
  return result.stdout.trim();
};

describe('chart lint and values.schema.json', () => {
  it('passes helm lint --strict', async () => {
    const result = await helm(['lint', '--strict', CHART]);
    expect(result.stdout).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it.each([
    ['logLevel=verbose', "at '/logLevel'"],
    ['pollInterval=soon', "at '/pollInterval'"],
    ['revisionPollInterval=5', "at '/revisionPollInterval'"],
    ['workers=0', "at '/workers'"],
    ['reconcileRate=-1', "at '/reconcileRate'"],
    ['controlPlaneRps=0', "at '/controlPlaneRps'"],
    ['controlPlaneConcurrency=many', "at '/controlPlaneConcurrency'"],
    ['replicaCount=two', "at '/replicaCount'"],
    ['leaderElection.renewDeadline=soon', "at '/leaderElection/renewDeadline'"],
    ['controlPlaneTimeout=30', "at '/controlPlaneTimeout'"],
    ['watchNamespaces[0]=Team_A', "at '/watchNamespaces/0'"],
    ['controlPlane.baseUrl=ftp://example.com', "at '/controlPlane/baseUrl'"],
    ['image.pullPolicy=Sometimes', "at '/image/pullPolicy'"],
    ['image.digest=latest', "at '/image/digest'"],
    ['metrics.port=70000', "at '/metrics/port'"],
    ['podDisruptionBudget.minAvailable=half', "at '/podDisruptionBudget/minAvailable'"],
    ['extraEnv[0].name=1BAD', "at '/extraEnv/0/name'"],
    ['credentials.apikey=typo', "'apikey' not allowed"],
    ['unknownKey=1', "'unknownKey' not allowed"],
    ['agentServer.allowedHosts[0]=https://agents.example.com/path', "at '/agentServer/allowedHosts/0'"],
    ['defaultCredentials.namespaces[0]=Team_A', "at '/defaultCredentials/namespaces/0'"],
    ['replicaCount=2,leaderElection.enabled=false', "at '/leaderElection/enabled'"],
    ['sharding=sometimes', "at '/sharding'"],
  ])('refuses --set %s with a message naming the value', async (set, message) => {
    const result = await helm(['template', 'schema', CHART, '--set', set]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("values don't meet the specifications of the schema");
    expect(result.stderr).toContain(message);
  });

  // Each value the controller refuses at start must fail the install instead of a crash-looping pod.
  it.each([
    ['pollInterval', 'POLL_INTERVAL', '0s'],
    ['revisionPollInterval', 'REVISION_POLL_INTERVAL', '0ms'],
    ['templatePollInterval', 'TEMPLATE_POLL_INTERVAL', '0m'],
    ['verification.backoff', 'VERIFICATION_BACKOFF', '0h0s'],
    ['pollInterval', 'POLL_INTERVAL', '10'],
    ['workers', 'WORKERS', '0'],
    ['importTemplatesNamespace', 'IMPORT_TEMPLATES_NAMESPACE', 'Team_A'],
  ])('refuses %s=%s as the controller refuses %s', async (value, env, bad) => {
    expect(() => loadConfig([], { [env]: bad })).toThrow();
    const result = await helm(['template', 'schema', CHART, '--set-string', `${value}=${bad}`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`at '/${value.replace('.', '/')}'`);
  });

  it.each([
    ['global.imageRegistry=registry.example.com', 'global values a parent chart passes'],
    ['replicaCount=1,leaderElection.enabled=false', 'one replica without leader election'],
    ['replicaCount=3,leaderElection.enabled=false,sharding=auto', 'replicas sharing the objects'],
    ['pollInterval=0.5s', 'a fractional duration above zero'],
  ])('accepts --set %s (%s)', async (set) => {
    const result = await helm(['template', 'schema', CHART, '--set', set]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('states the minimum Kubernetes version the CRD validation rules need, and the install page says the same', async () => {
    const chart = yaml.load(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { kubeVersion?: string };
    expect(chart.kubeVersion).toBe('>=1.29.0-0');
    expect(readFileSync(join(REPO, 'docs/install.md'), 'utf8')).toContain('Kubernetes 1.29 or newer');
    const old = await helm(['template', 'kv', CHART, '--kube-version', '1.28.9']);
    expect(old.code).not.toBe(0);
    expect(old.stderr).toContain('kubeVersion');
    const current = await helm(['template', 'kv', CHART, '--kube-version', '1.29.0']);
    expect(current.code).toBe(0);
  });
});

describe('helm template is the same on every render', () => {
  it('renders byte-identical output twice (nothing random: Argo CD would never settle)', async () => {
    const first = await render('stable', 'ops', ['--include-crds']);
    const second = await render('stable', 'ops', ['--include-crds']);
    expect(second.text).toBe(first.text);
    expect(find(first.objects, 'Secret')).toEqual([]);
  });
});

describe('the CRDs survive every uninstall path', () => {
  it('carry Helm keep and Argo CD no-delete, no-prune annotations', async () => {
    const { objects } = await render('crds', 'ops', ['--include-crds']);
    const crds = find(objects, 'CustomResourceDefinition');
    expect(crds).toHaveLength(3);
    for (const crd of crds) {
      expect(crd.metadata.annotations).toMatchObject({
        'helm.sh/resource-policy': 'keep',
        'argocd.argoproj.io/sync-options': 'Delete=false,Prune=false',
      });
    }
    expect(CRD_KEEP_ANNOTATIONS['argocd.argoproj.io/sync-options'].split(',').sort()).toEqual([
      'Delete=false',
      'Prune=false',
    ]);
  });
});

describe('PodDisruptionBudget', () => {
  it.each([
    [1, 0],
    [2, 1],
    [3, 1],
  ])('with replicaCount=%i renders %i (one replica: a PDB would block every drain)', async (replicas, n) => {
    const { objects } = await render('pdb', 'ops', ['--set', `replicaCount=${replicas}`]);
    expect(find(objects, 'PodDisruptionBudget')).toHaveLength(n);
  });
});

describe('default resources', () => {
  /** The N = 10000 column of a row of the performance table (bench/README.md, cells padded), in MiB. */
  const measuredAt10k = (figures: string, row: string) => {
    const mib = ' +[\\d.]+ MiB +\\|';
    const match = new RegExp(`\\| ${row} +\\|${mib}${mib} +([\\d.]+) MiB +\\|`).exec(figures);
    expect(match, row).not.toBeNull();
    return Number(match?.[1]);
  };
  const mebibytes = (q: string) => (q.endsWith('Gi') ? Number.parseFloat(q) * 1024 : Number.parseFloat(q));

  it('request the memory measured at 10,000 objects and limit it with half again above the peak (bench/README.md)', async () => {
    const figures = readFileSync(join(REPO, 'bench/README.md'), 'utf8');
    const steady = measuredAt10k(figures, 'controller RSS after the steady intervals');
    const peak = measuredAt10k(figures, 'controller peak RSS');
    const { objects } = await render('res', 'ops');
    const [deployment] = find(objects, 'Deployment') as [K8sObject];
    const spec = deployment.spec as {
      template: {
        spec: { containers: { resources: { requests: { memory: string }; limits: { memory: string } } }[] };
      };
    };
    const resources = spec.template.spec.containers[0]?.resources;
    expect(mebibytes(resources?.requests.memory ?? '')).toBeGreaterThanOrEqual(steady);
    expect(mebibytes(resources?.limits.memory ?? '')).toBeGreaterThanOrEqual(peak * 1.5);
  });
});

/** The controller's one cluster-wide grant in namespaced mode. */
const CLUSTER_READS = [
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  {
    apiGroups: ['deploy.agents.dev'],
    resources: ['deploymentwindowpolicies'],
    verbs: ['get', 'list', 'watch'],
  },
  { apiGroups: ['deploy.agents.dev'], resources: ['deploymentwindowpolicies/status'], verbs: ['patch'] },
];

describe('aggregated ClusterRoles for people', () => {
  it('fold view and edit of both kinds into the built-in roles, and nobody but the controller writes status', async () => {
    const { objects } = await render('agg', 'ops');
    const roles = objects.filter(isAggregatedRole);
    expect(roles.map((r) => r.metadata.name).sort()).toEqual([
      'agg-agent-deployment-operator-edit',
      'agg-agent-deployment-operator-view',
    ]);
    for (const [role, { aggregateTo, rules }] of Object.entries(USER_ROLES)) {
      const rendered = roles.find((r) => r.metadata.name.endsWith(`-${role}`)) as K8sObject;
      expect(rendered.rules).toEqual(rules);
      for (const to of aggregateTo)
        expect(rendered.metadata.labels).toHaveProperty([aggregateLabel(to)], 'true');
    }
    const verbsOnStatus = roles.flatMap((r) =>
      (r.rules as { resources: string[]; verbs: string[] }[])
        .filter((rule) => rule.resources.some((res) => res.endsWith('/status')))
        .flatMap((rule) => rule.verbs),
    );
    expect(verbsOnStatus.sort()).toEqual(['get', 'list', 'watch']);
    // A freeze is the platform team's: no role for people writes a DeploymentWindowPolicy.
    const policyWrites = roles.flatMap((r) =>
      (r.rules as { resources: string[]; verbs: string[] }[])
        .filter((rule) => rule.resources.some((res) => res.startsWith('deploymentwindowpolicies')))
        .flatMap((rule) => rule.verbs.filter((v) => !['get', 'list', 'watch'].includes(v))),
    );
    expect(policyWrites).toEqual([]);
    const off = await render('agg', 'ops', ['--set', 'rbac.aggregateToDefaultRoles=false']);
    expect(off.objects.filter(isAggregatedRole)).toEqual([]);
  });
});

describe('replicas and leader election', () => {
  it('refuses more than one replica with leader election off, saying why', async () => {
    const result = await helm([
      'template',
      'replicas',
      CHART,
      '--set',
      'replicaCount=2',
      '--set',
      'leaderElection.enabled=false',
    ]);
    expect(result.code).not.toBe(0);
    // The schema refuses it first, naming the value; the template's own check stays for --skip-schema-validation.
    expect(result.stderr).toContain("at '/leaderElection/enabled'");
  });

  it('passes the sharding mode to the controller, as the controller spells it', async () => {
    for (const mode of ['off', 'auto']) {
      const result = await helm([
        'template',
        'sharding',
        CHART,
        '--set',
        `sharding=${mode}`,
        '--set',
        'replicaCount=3',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`name: SHARDING\\s+value: "${mode}"`));
      expect(loadConfig([], { SHARDING: mode }).sharding).toBe(mode);
    }
  });

  it('passes the lease timings to the controller', async () => {
    const result = await helm(['template', 'timings', CHART, '--set', 'leaderElection.renewDeadline=8s']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/name: LEADER_ELECTION_RENEW_DEADLINE\s+value: "8s"/);
    expect(result.stdout).toMatch(/name: LEADER_ELECTION_LEASE_DURATION\s+value: ""/);
  });

  it('leaves the lease timings to the controller by default: its own for each sharding mode', async () => {
    for (const [mode, expected] of [
      ['off', [15_000, 10_000, 2_000]],
      ['auto', [6_000, 4_000, 1_000]],
    ] as const) {
      const { objects } = await render('timings', 'ops', [
        '--set',
        `sharding=${mode}`,
        '--set',
        'replicaCount=3',
      ]);
      const [deployment] = find(objects, 'Deployment') as [K8sObject];
      const spec = deployment.spec as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      };
      const env = Object.fromEntries(
        (spec.template.spec.containers[0]?.env ?? []).flatMap((e) =>
          e.name.startsWith('LEADER_ELECTION_') || e.name === 'SHARDING' ? [[e.name, e.value ?? '']] : [],
        ),
      );
      const c = loadConfig([], env);
      expect([
        c.leaderElectionLeaseDuration,
        c.leaderElectionRenewDeadline,
        c.leaderElectionRetryPeriod,
      ]).toEqual(expected);
    }
  });
});

describe('helm template applied with a server-side dry run', () => {
  it('renders the default values: cluster-wide RBAC, hardened Deployment, no ServiceMonitor', async () => {
    const ns = await createTestNamespace('chart-default');
    const { text, objects } = await render('dflt', ns, ['--include-crds']);
    expect(excessPermissions(objects)).toEqual([]);
    // The watched namespaces' rules, and the cluster-scoped reads (namespaces, DeploymentWindowPolicies).
    expect(find(objects, 'ClusterRole').filter((r) => !isAggregatedRole(r))).toHaveLength(2);
    expect(find(objects, 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([
      'agentdeployments.deploy.agents.dev',
      'deploymentwindowpolicies.deploy.agents.dev',
      'sandboxtemplates.deploy.agents.dev',
    ]);
    expect(find(objects, 'ServiceMonitor')).toEqual([]);
    const [deployment] = find(objects, 'Deployment') as [K8sObject];
    const spec = deployment.spec as { replicas: number; template: { spec: Record<string, unknown> } };
    expect(spec.replicas).toBe(2);
    expect(spec.template.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [container] = spec.template.spec.containers as [Record<string, unknown>];
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz' } });

    const applied = await dryRunApply(text);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  it('renders namespaced mode: Roles in each watched namespace, cluster-wide only the cluster-scoped reads', async () => {
    const [home, teamA, teamB] = await Promise.all(
      ['chart-ns-home', 'chart-ns-a', 'chart-ns-b'].map((p) => createTestNamespace(p)),
    );
    const { text, objects } = await render('nsd', home as string, [
      '--set',
      `watchNamespaces={${teamA},${teamB}}`,
      '--set',
      'labelSelector=shard=a',
    ]);
    expect(excessPermissions(objects)).toEqual([]);
    // The aggregated roles are for people and bound to nobody here; cluster-wide, only what is
    // cluster-scoped: namespaces' labels and the DeploymentWindowPolicies.
    const [clusterRole, ...more] = find(objects, 'ClusterRole').filter((r) => !isAggregatedRole(r));
    expect(more).toEqual([]);
    expect(clusterRole?.rules).toEqual(CLUSTER_READS);
    expect(find(objects, 'ClusterRoleBinding')).toHaveLength(1);
    const roleNamespaces = find(objects, 'Role').map((r) => r.metadata.namespace);
    expect(roleNamespaces.sort()).toEqual([home, teamA, teamB].sort());
    const env = JSON.stringify(find(objects, 'Deployment')[0]);
    expect(env).toContain(`{"name":"WATCH_NAMESPACES","value":"${teamA},${teamB}"}`);
    expect(env).toContain('{"name":"LABEL_SELECTOR","value":"shard=a"}');

    const applied = await dryRunApply(text);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  it('renders the default-credentials scope and host allow-list, with a read-only namespace grant for a selector', async () => {
    const [home, teamA] = await Promise.all(
      ['chart-scope-home', 'chart-scope-a'].map((p) => createTestNamespace(p)),
    );
    const { text, objects } = await render('scope', home as string, [
      '--set',
      `watchNamespaces={${teamA}}`,
      '--set',
      `defaultCredentials.namespaces={${teamA}}`,
      '--set',
      'defaultCredentials.namespaceSelector=tier=platform',
      '--set',
      'agentServer.allowedHosts={*.agents.example.com,127.0.0.1:8787}',
      '--set',
      'agentServer.wildcardHostsAcknowledged=true',
      '--set',
      'agentServer.allowedInternalAddresses={10.20.0.0/16,agents.internal.example}',
      '--set',
      'analysis.allowedUrls={http://prometheus.monitoring.svc:9090,https://metrics.example.com/api}',
    ]);
    expect(excessPermissions(objects)).toEqual([]);
    // Besides the aggregated roles for people, one ClusterRole: reading namespaces (and the policies).
    const controllerRoles = find(objects, 'ClusterRole').filter((r) => !isAggregatedRole(r));
    const [clusterRole] = controllerRoles;
    expect(controllerRoles).toHaveLength(1);
    expect(clusterRole?.rules).toEqual(CLUSTER_READS);
    const env = JSON.stringify(find(objects, 'Deployment')[0]);
    expect(env).toContain(`{"name":"DEFAULT_CREDENTIALS_NAMESPACES","value":"${teamA}"}`);
    expect(env).toContain('{"name":"DEFAULT_CREDENTIALS_NAMESPACE_SELECTOR","value":"tier=platform"}');
    expect(env).toContain(
      '{"name":"AGENT_SERVER_ALLOWED_HOSTS","value":"*.agents.example.com,127.0.0.1:8787"}',
    );
    expect(env).toContain('{"name":"AGENT_SERVER_WILDCARD_HOSTS_ACKNOWLEDGED","value":"true"}');
    expect(env).toContain(
      '{"name":"AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES","value":"10.20.0.0/16,agents.internal.example"}',
    );
    expect(env).toContain(
      '{"name":"ANALYSIS_ALLOWED_URLS","value":"http://prometheus.monitoring.svc:9090,https://metrics.example.com/api"}',
    );
    const applied = await dryRunApply(text);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  it('renders a ServiceMonitor only when the Prometheus Operator API exists', async () => {
    const { objects } = await render('mon', 'monitoring', [
      '--api-versions',
      'monitoring.coreos.com/v1/ServiceMonitor',
    ]);
    const [monitor] = find(objects, 'ServiceMonitor');
    // honorLabels: the object gauges' own namespace label is kept (the alerts group by it).
    expect(monitor?.spec).toMatchObject({
      endpoints: [{ port: 'http-metrics', path: '/metrics', honorLabels: true }],
    });
  });

  it('uses an existing credentials Secret instead of creating one', async () => {
    const { objects } = await render('ext', 'ops', ['--set', 'credentials.existingSecret=cp-creds']);
    expect(find(objects, 'Secret')).toEqual([]);
    expect(JSON.stringify(find(objects, 'Deployment')[0])).toContain('"name":"cp-creds","key":"apiKey"');
  });
});

describe('the chart and the controller flags', () => {
  // Options the chart sets another way: the Lease lives in the pod namespace (POD_NAMESPACE).
  const NOT_IN_CHART = new Set(['LEADER_ELECTION_NAMESPACE']);

  it('sets every option the controller reads, and nothing it does not', async () => {
    const { objects } = await render('flags', 'ops', [
      '--set',
      'credentials.apiKey=k',
      '--set',
      'controlPlane.baseUrl=https://cp.example.com',
      '--set',
      'templatePollInterval=2m',
      '--set',
      'importTemplatesNamespace=templates',
      '--set',
      'secretsDigestKey.existingSecret=digest-key',
    ]);
    const [deployment] = find(objects, 'Deployment') as [K8sObject];
    const spec = deployment.spec as { template: { spec: { containers: { env: { name: string }[] }[] } } };
    const set = new Set(spec.template.spec.containers[0]?.env.map((e) => e.name));
    const read = OPTIONS.map((o) => o.env).filter((env) => !NOT_IN_CHART.has(env));
    expect(read.filter((env) => !set.has(env))).toEqual([]);
    expect([...set].filter((env) => !(OPTIONS.map((o) => o.env) as string[]).includes(env))).toEqual([]);
  });
});

describe('helm install into the API server', () => {
  it('creates the objects, upgrades, grants only what the code uses, and gives people view and edit', async () => {
    const ns = await createTestNamespace('chart-install');
    const other = await createTestNamespace('chart-install-other');
    const release = `ado-${ns.slice(-8)}`;
    const installed = await helm([
      'install',
      release,
      CHART,
      '--namespace',
      ns,
      '--set',
      'credentials.apiKey=test-api-key',
      '--set',
      'credentials.tenantId=tenant-1',
    ]);
    expect(installed.stderr).not.toMatch(/error/i);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('It watches every namespace.');

    const fullname = `${release}-agent-deployment-operator`;
    const got = await kubectl(
      [
        'get',
        `deployment/${fullname}`,
        `serviceaccount/${fullname}`,
        `service/${fullname}-metrics`,
        `poddisruptionbudget/${fullname}`,
        `secret/${fullname}-credentials`,
        `clusterrole/${fullname}-view`,
        `clusterrole/${fullname}-edit`,
        `role/${fullname}-leader-election`,
        `rolebinding/${fullname}-leader-election`,
        `clusterrole/${fullname}`,
        `clusterrolebinding/${fullname}`,
        '-o',
        'json',
      ],
      { namespace: ns },
    );
    expect(got.stderr).toBe('');
    expect(got.code).toBe(0);
    const items = (JSON.parse(got.stdout) as { items: K8sObject[] }).items;
    expect(items).toHaveLength(11);
    expect(excessPermissions(items)).toEqual([]);

    const upgraded = await helm([
      'upgrade',
      release,
      CHART,
      '--namespace',
      ns,
      '--reuse-values',
      '--set',
      'logLevel=debug',
    ]);
    expect(upgraded.code).toBe(0);

    // The aggregation controller (kube-controller-manager) does not run here: bind the roles directly.
    for (const role of ['view', 'edit']) {
      const bound = await kubectl(
        [
          'create',
          'rolebinding',
          `people-${role}`,
          `--clusterrole=${fullname}-${role}`,
          `--user=${role}-user`,
        ],
        { namespace: other },
      );
      expect(bound.code, bound.stderr).toBe(0);
    }
    const person = (user: string, verb: string, resource: string, subresource?: string) =>
      canI(user, verb, resource, other, subresource);
    expect(await person('view-user', 'list', 'agentdeployments.deploy.agents.dev')).toBe('yes');
    expect(await person('view-user', 'create', 'agentdeployments.deploy.agents.dev')).toBe('no');
    expect(await person('edit-user', 'create', 'agentdeployments.deploy.agents.dev')).toBe('yes');
    expect(await person('edit-user', 'delete', 'sandboxtemplates.deploy.agents.dev')).toBe('yes');
    expect(await person('edit-user', 'patch', 'agentdeployments.deploy.agents.dev', 'status')).toBe('no');

    const sa = `system:serviceaccount:${ns}:${fullname}`;
    expect(await canI(sa, 'patch', 'agentdeployments.deploy.agents.dev', other)).toBe('yes');
    expect(await canI(sa, 'patch', 'agentdeployments.deploy.agents.dev', other, 'status')).toBe('yes');
    expect(await canI(sa, 'update', 'agentdeployments.deploy.agents.dev', other, 'status')).toBe('no');
    expect(await canI(sa, 'create', 'sandboxtemplates.deploy.agents.dev', other)).toBe('no');
    expect(await canI(sa, 'watch', 'secrets', other)).toBe('yes');
    expect(await canI(sa, 'create', 'leases.coordination.k8s.io', ns)).toBe('yes');
    expect(await canI(sa, 'update', 'agentdeployments.deploy.agents.dev', other)).toBe('no');
    expect(await canI(sa, 'delete', 'agentdeployments.deploy.agents.dev', other)).toBe('no');
    expect(await canI(sa, 'create', 'secrets', other)).toBe('no');
    expect(await canI(sa, 'create', 'leases.coordination.k8s.io', other)).toBe('no');

    const removed = await helm(['uninstall', release, '--namespace', ns]);
    expect(removed.code).toBe(0);
    const gone = await kubectl(['get', 'clusterrole', fullname, '--ignore-not-found', '-o', 'name']);
    expect(gone.stdout).toBe('');
  });

  it('in namespaced mode grants the watched namespaces only', async () => {
    const ns = await createTestNamespace('chart-nsd');
    const watched = await createTestNamespace('chart-nsd-watched');
    const unwatched = await createTestNamespace('chart-nsd-unwatched');
    const release = `nsd-${ns.slice(-8)}`;
    const installed = await helm([
      'install',
      release,
      CHART,
      '--namespace',
      ns,
      '--set',
      `watchNamespaces={${watched}}`,
      '--set',
      `importTemplatesNamespace=${watched}`,
    ]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`It watches the namespaces: ${watched}`);
    const sa = `system:serviceaccount:${ns}:${release}-agent-deployment-operator`;
    expect(await canI(sa, 'list', 'secrets', watched)).toBe('yes');
    expect(await canI(sa, 'patch', 'agentdeployments.deploy.agents.dev', watched)).toBe('yes');
    expect(await canI(sa, 'list', 'secrets', unwatched)).toBe('no');
    expect(await canI(sa, 'list', 'agentdeployments.deploy.agents.dev', unwatched)).toBe('no');
    expect(await canI(sa, 'list', 'secrets', ns)).toBe('no');
    expect(await canI(sa, 'create', 'sandboxtemplates.deploy.agents.dev', watched)).toBe('yes');
    expect(await canI(sa, 'create', 'sandboxtemplates.deploy.agents.dev', unwatched)).toBe('no');
    await helm(['uninstall', release, '--namespace', ns]);
  });
});

describe('docs/argocd-application.yaml', () => {
  const apps = yaml.loadAll(readFileSync(join(REPO, 'docs/argocd-application.yaml'), 'utf8')) as {
    metadata: { name: string };
    spec: { source: { targetRevision: string; path: string; helm?: { valuesObject: unknown } } };
  }[];
  const operatorApp = apps.find((a) => a.spec.source.path === 'helm/agent-deployment-operator');

  it('follows a ref that exists: main, or a tag of this repository', async () => {
    const ref = operatorApp?.spec.source.targetRevision ?? '';
    const tags = (await run('git', ['tag', '--list'], { cwd: REPO })).stdout.split('\n');
    expect(ref === 'main' || tags.includes(ref), `targetRevision ${ref}`).toBe(true);
  });

  it('renders with its values, needing no Secret but the credentials the install page creates', async () => {
    const values = operatorApp?.spec.source.helm?.valuesObject as Record<string, unknown>;
    expect(Object.keys(values)).toEqual(['credentials']);
    const install = readFileSync(join(REPO, 'docs/install.md'), 'utf8');
    expect(install).toContain('create secret generic control-plane-credentials');
    const path = join(mkdtempSync(join(tmpdir(), 'argocd-values-')), 'values.yaml');
    writeFileSync(path, yaml.dump(values));
    const { objects } = await render('agent-deployment-operator', 'agent-deployment-operator', ['-f', path]);
    expect(find(objects, 'Secret')).toEqual([]);
  });
});
