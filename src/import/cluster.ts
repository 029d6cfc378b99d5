/**
 * The import's check against the cluster, through the plan's own reads: a server-side dry-run apply of
 * each AgentDeployment (the API server's CEL rules and transition rules, which the offline schema check
 * cannot evaluate; nothing is persisted), and whether an object of that name is there already.
 */
import type { PlanKube } from '../plan/model.ts';
import type { ImportedAgentDeployment } from './manifests.ts';

export interface ClusterVerdict {
  /** The API server's refusal, naming the field and the rule. */
  refusal?: string;
  /** Something worth saying that does not stop the object. */
  note?: string;
}

export type ClusterCheck = (obj: ImportedAgentDeployment) => Promise<ClusterVerdict>;

export function clusterCheck(kube: Pick<PlanKube, 'dryRun' | 'live'>): ClusterCheck {
  return async (obj) => {
    const { namespace, name } = obj.metadata;
    const live = await kube.live('AgentDeployment', namespace, name);
    const refusal = await kube.dryRun(obj);
    const recorded = (live?.status as { deploymentId?: string } | undefined)?.deploymentId;
    return {
      ...(refusal ? { refusal: `the API server refuses it: ${refusal}` } : {}),
      // An existing object may explain a refusal (a transition rule), or be changed by the apply.
      ...(live
        ? {
            note: `an AgentDeployment ${namespace}/${name} exists already${recorded ? ` (it manages deployment ${recorded})` : ''}: applying the import changes it`,
          }
        : {}),
    };
  };
}
