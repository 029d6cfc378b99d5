/** A read-only view of a control-plane client: the plan never holds a method that writes. */
import type { ControlPlaneClient } from '../controlplane/client.ts';
import type { PlanClient } from './model.ts';

export function readOnly(client: ControlPlaneClient): PlanClient {
  return {
    getDeployment: (id) => client.getDeployment(id),
    getRevision: (deploymentId, revisionId) => client.getRevision(deploymentId, revisionId),
    findDeploymentsByName: (name) => client.findDeploymentsByName(name),
    listAllSandboxTemplates: () => client.listAllSandboxTemplates(),
  };
}
