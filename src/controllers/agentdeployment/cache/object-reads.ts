/**
 * Reads of AgentDeployments from the API server outside the watch: one object, or a namespace a page
 * at a time. The cached share (cached-share.ts) reads with them what it must hold in full.
 */
import type { AgentDeployment } from '../../../api/agentdeployment.ts';
import { AGENT_DEPLOYMENT, GROUP, VERSION } from '../../../api/group.ts';
import type { KubeAccess } from '../../../kube/access.ts';
import { isNotFound } from '../../../kube/errors.ts';
import { listPages } from '../../../runtime/list-pages.ts';
import { getObject, resourcePath } from '../../../runtime/objects.ts';

const resource = { group: GROUP, version: VERSION, plural: AGENT_DEPLOYMENT.plural };

interface ObjectReads {
  /** The object, undefined when it is gone. */
  read(namespace: string, name: string, signal: AbortSignal): Promise<AgentDeployment | undefined>;
  /** The namespace's objects the label selector matches, a page at a time. */
  list(namespace: string): AsyncIterable<readonly AgentDeployment[]>;
}

export function objectReads(access: KubeAccess, labelSelector: string | undefined): ObjectReads {
  return {
    read: async (namespace, name, signal) => {
      try {
        return await getObject<AgentDeployment>(access, { resource, namespace, name }, signal);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    list: async function* (namespace) {
      const path = resourcePath(resource, namespace);
      for await (const page of listPages<AgentDeployment>(access, path, { labelSelector })) yield page.items;
    },
  };
}
