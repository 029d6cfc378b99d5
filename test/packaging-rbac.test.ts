/**
 * The RBAC the chart grants is enough: the operator runs in-process with the token of the chart's service
 * account (namespaced mode, template import on), reconciles an AgentDeployment to Ready, imports the
 * simulator's templates as SandboxTemplates and reports their status, holds the Lease, reads namespace
 * labels (the default credentials scoped by a selector), puts and takes its in-use finalizer on a
 * credentials Secret, and removes its finalizer on delete, without a single 403. A shard member
 * (--sharding=auto) joins, watches the member Leases and leaves with the same token. The other packaging tests check the converse (nothing more
 * is granted than scripts/rbac-rules.ts lists).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { KubeAccess } from '../src/kube/access.ts';
import { kubeRequest } from '../src/kube/request.ts';
import { type Operator, startOperator } from '../src/operator.ts';
import { startShardMembership } from '../src/runtime/shard-membership.ts';
import { DEFAULT_API_KEY, defaultListeners, EXAMPLE_TEMPLATES } from '../src/simulator/index.ts';
import { installChartAs, lineSink } from './packaging-helpers.ts';
import {
  createAgd,
  deleteAgd,
  eventually,
  type Harness,
  putSecret,
  sleep,
  startHarness,
  waitReady,
} from './support/harness.ts';
import { createTestNamespace, kubectl } from './support/kube.ts';

/** The chart's namespace selector for the default credentials: its ClusterRole must let namespaces be read. */
const SCOPE_LABEL = 'agents.test/default-credentials';

let h: Harness;
let operator: Operator | undefined;
let releaseNs: string;
let chartAccess: KubeAccess;
const logs: string[] = [];

beforeAll(async () => {
  h = await startHarness('rbac-sa', { withOperator: false, simulator: { templates: EXAMPLE_TEMPLATES } });
  releaseNs = await createTestNamespace('rbac-release');
  const release = 'rbac';
  const access = await installChartAs(release, releaseNs, [
    `watchNamespaces={${h.ns}}`,
    `importTemplatesNamespace=${h.ns}`,
    `defaultCredentials.namespaceSelector=${SCOPE_LABEL}=true`,
  ]);
  chartAccess = access;
  const config = loadConfig([], {
    CONTROL_PLANE_URL: h.sim.url,
    CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
    WATCH_NAMESPACES: h.ns,
    IMPORT_TEMPLATES_NAMESPACE: h.ns,
    DEFAULT_CREDENTIALS_NAMESPACE_SELECTOR: `${SCOPE_LABEL}=true`,
    POLL_INTERVAL: '1s',
    REVISION_POLL_INTERVAL: '200ms',
    LEADER_ELECT: 'true',
    POD_NAMESPACE: releaseNs,
    LEADER_ELECTION_ID: `${release}-agent-deployment-operator`,
    HTTP_PORT: '0',
    LOG_LEVEL: 'debug',
  });
  operator = await startOperator({
    config,
    access,
    logger: pino({ level: 'debug' }, lineSink(logs)),
  });
});

afterAll(async () => {
  await operator?.stop(1_000);
  await h?.stop();
});

describe('the chart RBAC, used by the operator itself', () => {
  it('suffices to reconcile, import templates, lead, read namespaces, protect credentials and finalize', async () => {
    await kubeRequest(h.access, {
      method: 'PATCH',
      path: `/api/v1/namespaces/${h.ns}`,
      body: { metadata: { labels: { [SCOPE_LABEL]: 'true' } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(async () => operator?.isLeader(), 'leadership', 30_000);
    // A namespace's own credentials: the controller puts its in-use finalizer on the Secret (patch).
    await putSecret(h, 'rbac-creds', { apiKey: DEFAULT_API_KEY });
    await createAgd(h, {
      metadata: { name: 'rbac-own-creds' },
      spec: {
        source: 'external_image',
        credentialsSecretRef: { name: 'rbac-creds' },
        sourceConfig: {
          listenerId: defaultListeners()[0]?.id,
          resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 },
        },
        sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
      },
    });
    await waitReady(h, 'rbac-own-creds', 60_000);
    const creds = (await kubeRequest(h.access, {
      method: 'GET',
      path: `/api/v1/namespaces/${h.ns}/secrets/rbac-creds`,
    })) as { metadata: { finalizers?: string[] } };
    expect(creds.metadata.finalizers).toEqual(['deploy.agents.dev/credentials-in-use']);
    await createAgd(h, {
      metadata: { name: 'rbac-agent' },
      spec: {
        source: 'external_image',
        sourceConfig: {
          listenerId: defaultListeners()[0]?.id,
          resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 },
        },
        sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
      },
    });
    const ready = await waitReady(h, 'rbac-agent', 60_000);
    expect(ready.metadata?.finalizers).toContain('deploy.agents.dev/finalizer');

    const templates = await eventually(
      async () => {
        const list = (await kubeRequest(h.access, {
          method: 'GET',
          path: `/apis/deploy.agents.dev/v1alpha1/namespaces/${h.ns}/sandboxtemplates`,
        })) as { items: { status?: { observedGeneration?: number } }[] };
        const observed = list.items.filter((t) => t.status?.observedGeneration !== undefined);
        return observed.length > 0 && observed.length === list.items.length ? list.items : undefined;
      },
      'imported SandboxTemplates with status',
      60_000,
    );
    expect(templates.length).toBeGreaterThan(0);

    await deleteAgd(h, 'rbac-agent');
    await eventually(
      async () => {
        const got = await kubectl(['get', 'agd', 'rbac-agent', '--ignore-not-found', '-o', 'name'], {
          namespace: h.ns,
        });
        return got.stdout.trim() === '';
      },
      'the finalizer to be removed',
      60_000,
    );

    await deleteAgd(h, 'rbac-own-creds');
    await eventually(
      async () => {
        const got = (await kubeRequest(h.access, {
          method: 'GET',
          path: `/api/v1/namespaces/${h.ns}/secrets/rbac-creds`,
        })) as { metadata: { finalizers?: string[] } };
        return (got.metadata.finalizers ?? []).length === 0;
      },
      'the in-use finalizer released',
      60_000,
    );

    const denied = logs
      .map((line) => line.search(/forbidden|\b403\b/i))
      .flatMap((at, i) => (at < 0 ? [] : [(logs[i] as string).slice(Math.max(0, at - 80), at + 240)]));
    expect(denied).toEqual([]);
  });

  it('suffices for a shard member to join, watch the member Leases and leave', async () => {
    const memberLogs: string[] = [];
    const membership = startShardMembership({
      access: chartAccess,
      namespace: releaseNs,
      group: 'rbac-agent-deployment-operator',
      identity: 'rbac-member',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 500,
      logger: pino({ level: 'debug' }, lineSink(memberLogs)),
      running: () => [],
      onChange: () => {},
      onLost: () => {},
    });
    await membership.joined;
    // A few rounds and the watch's first answer (a refused watch logs its failure at once).
    await sleep(2_000);
    await membership.release();
    expect(memberLogs.filter((line) => /forbidden|\b403\b|failed/i.test(line))).toEqual([]);
    expect(memberLogs.some((line) => line.includes('left the shard'))).toBe(true);
  });
});
