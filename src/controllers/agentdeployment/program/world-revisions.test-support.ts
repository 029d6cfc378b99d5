/**
 * The platform's revisions and the object's history for the remediation worlds, and spec.analysis with
 * its status for the analysis worlds (worlds.test-support.ts builds the rest of a world).
 */

import {
  type AgentDeployment,
  AgentDeploymentSpec,
  type AgentDeploymentStatus,
} from '../../../api/agentdeployment.ts';
import { Annotation } from '../../../api/names.ts';
import type { HistoryEntry } from '../../../api/remediation.ts';
import { ControlPlaneClient } from '../../../controlplane/client.ts';
import { desiredDeployment } from '../../../reconcile/agentdeployment/desired-deployment.ts';
import { desiredConfig, type RevisionConfig } from '../../../reconcile/agentdeployment/history.ts';
import { DEFAULT_API_KEY, type Simulator } from '../../../simulator/index.ts';
import type { WorldSpec } from './worlds.test-support.ts';

export const DIGEST_KEY = 'digest-key-for-worlds';
export const NOW = Date.parse('2026-06-01T00:00:00Z');

/**
 * The platform's revisions and the object's history for a remediation world: the deployment (made with
 * the spec's image, revision `spec`) gets a revision of another image (`other`), and, rolled back, a
 * redeploy of `spec`'s revision... as each world needs.
 */
export async function remediationWorld(
  sim: Simulator,
  kind: Exclude<WorldSpec['remediation'], 'none'>,
  obj: AgentDeployment,
  deploymentId: string,
  lookup: (name: string) => Record<string, string> | undefined,
): Promise<void> {
  // Defaulted as the API server stores it (the plan parses its input the same way): the history's
  // digests are of what both sides compute.
  obj.spec = AgentDeploymentSpec.parse(obj.spec) as AgentDeployment['spec'];
  if (kind === 'rollbackDue')
    obj.spec.verification = { assistantId: 'agent' } as AgentDeployment['spec']['verification'];
  const desired = desiredDeployment(obj, lookup, DIGEST_KEY);
  if (!desired.ok) throw new Error(desired.message);
  const config = desiredConfig(desired.request, desired.digests.secrets);
  const status = obj.status as AgentDeploymentStatus;
  const client = new ControlPlaneClient({ credentials: { baseUrl: sim.url, apiKey: DEFAULT_API_KEY } });
  const at = new Date(NOW - 600_000).toISOString();
  const other = { ...config, image: 'registry.example.com/agent:0' };
  const entry = (id: string, c: RevisionConfig, more: Partial<HistoryEntry>): HistoryEntry => ({
    id,
    ...c,
    trigger: 'Spec',
    generation: 1,
    outcome: 'Deployed',
    createdAt: at,
    ...more,
  });
  const deployed = (d: { latest_revision_id?: string | null | undefined }) => {
    const id = d.latest_revision_id as string;
    sim.setRevisionStatus(deploymentId, id, 'DEPLOYED');
    return id;
  };
  try {
    const first = deployed(
      sim.deployments().find((d) => d.id === deploymentId) as { latest_revision_id?: string },
    );
    const second = deployed(
      await client.patchDeployment(deploymentId, {
        source_revision_config: { image_uri: 'registry.example.com/agent:0' },
      }),
    );
    const good = (id: string, c: RevisionConfig) => entry(id, c, { verification: 'Succeeded' });
    switch (kind) {
      case 'rollbackDue': {
        // The spec's image (revision `third`, made by a PATCH back) fails verification; agent:0 is good.
        const third = deployed(
          await client.patchDeployment(deploymentId, {
            source_revision_config: { image_uri: config.image as string },
          }),
        );
        obj.spec.remediation = { strategy: 'Rollback' };
        status.history = [entry(third, config, { verification: 'Failed' }), good(second, other)];
        status.lastGoodRevision = second;
        status.latestRevisionId = third;
        status.revisionStatus = 'DEPLOYED';
        status.verification = {
          revisionId: third,
          specDigest: 'v',
          failures: 1,
          last: { startedAt: at, completedAt: at, outcome: 'Failed' },
        };
        return;
      }
      case 'rolledBack': {
        // The spec's image failed; agent:0's revision was redeployed for this very generation.
        const redeployed = deployed(await client.redeployRevision(deploymentId, second));
        obj.spec.remediation = { strategy: 'Rollback' };
        status.history = [
          entry(redeployed, other, { trigger: 'Rollback', redeployOf: second }),
          entry(first, config, { outcome: 'RolledBack' }),
          good(second, other),
        ];
        status.lastGoodRevision = redeployed;
        status.latestRevisionId = redeployed;
        status.revisionStatus = 'DEPLOYED';
        return;
      }
      case 'revert':
      case 'revertGone':
        // Generation 2 moved to agent:0; generation 3 (the spec) is back on the first revision's image.
        obj.metadata.generation = 3;
        status.history = [good(second, other), good(first, config)].map((e, i) => ({
          ...e,
          generation: 2 - i,
        }));
        status.lastGoodRevision = second;
        status.latestRevisionId = second;
        status.revisionStatus = 'DEPLOYED';
        if (kind === 'revertGone') sim.pruneRevisions(deploymentId, 1);
        return;
    }
  } finally {
    await client.close();
  }
}

/** spec.analysis (every provider of the worlds answers 1: world-verdicts.test-support.ts) and its status. */
export function analysisWorld(
  kind: Exclude<NonNullable<WorldSpec['analysis']>, 'none'>,
  obj: AgentDeployment,
  revisionId: string | null | undefined,
): void {
  const annotations = obj.metadata.annotations as Record<string, string>;
  obj.spec.analysis = {
    count: 2,
    metrics: [
      {
        name: 'errors',
        web: { url: 'https://metrics.example.com/errors', jsonPath: '{$.rate}' },
        successCondition: kind === 'invalid' ? 'result >' : 'result > 0',
      },
    ],
  };
  if (kind === 'starts' || kind === 'invalid' || !revisionId) return;
  const at = new Date(NOW - 60_000).toISOString();
  const phase = kind === 'failed' ? 'Failed' : kind === 'promoteRequested' ? 'Inconclusive' : 'Running';
  (obj.status as AgentDeploymentStatus).analysis = {
    revisionId,
    phase,
    startedAt: at,
    ...(phase === 'Running' ? { nextMeasurementAt: new Date(NOW + 3_600_000).toISOString() } : {}),
    ...(phase === 'Running' ? {} : { completedAt: at, message: 'metric errors said so' }),
    metrics: [
      {
        name: 'errors',
        measured: 1,
        successful: 0,
        failed: phase === 'Failed' ? 1 : 0,
        inconclusive: phase === 'Inconclusive' ? 1 : 0,
        error: 0,
        consecutiveErrors: 0,
        measurements: [],
      },
    ],
  };
  if (kind === 'abortRequested') annotations[Annotation.AnalysisAbortRequestedAt] = 'now';
  if (kind === 'promoteRequested') annotations[Annotation.AnalysisPromoteRequestedAt] = 'now';
}
