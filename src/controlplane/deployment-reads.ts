/**
 * The reads the AgentDeployment verdicts ask for, the same for the controller and the plan: a GET by id
 * (404 is 'missing'), and the deployments of a name split into one that is live and one the platform is
 * deleting. Over any client with these two calls (the controller's, or the plan's read-only one).
 */
import type { NameLookup, ReadById } from '../reconcile/agentdeployment/ownership.ts';
import { NotFoundError } from './errors.ts';
import { isDeleting } from './progress.ts';
import type { Deployment } from './schemas.ts';

interface DeploymentReads {
  getDeployment(id: string, opts?: { namespaceChosen?: boolean }): Promise<Deployment>;
  findDeploymentsByName(name: string): Promise<Deployment[]>;
}

/** `namespaceChosen`: the id is a namespace's (an adopt annotation): see Call.namespaceChosen. */
export async function readById(
  client: Pick<DeploymentReads, 'getDeployment'>,
  id: string,
  opts: { namespaceChosen?: boolean } = {},
): Promise<ReadById> {
  try {
    return await client.getDeployment(id, opts);
  } catch (err) {
    if (err instanceof NotFoundError) return 'missing';
    throw err;
  }
}

export async function lookupName(
  client: Pick<DeploymentReads, 'findDeploymentsByName'>,
  name: string,
): Promise<NameLookup> {
  const found = await client.findDeploymentsByName(name);
  return {
    live: found.find((d) => !isDeleting(d.status)),
    deleting: found.find((d) => isDeleting(d.status)),
  };
}
