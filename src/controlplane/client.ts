/**
 * The control-plane HTTP client: one method per endpoint of the interface, each saying what it sends,
 * which schema its answer must pass and what the answer must match (the id asked for). Sending, retries,
 * limits, body bounds and typed errors are the transport's (transport.ts). Only GETs are retried.
 */
import {
  Deployment,
  type DeploymentCreateRequest,
  DeploymentList,
  type DeploymentPatchRequest,
  type DeploymentStatus,
  ListenerList,
  Revision,
  RevisionList,
  type RevisionStatus,
} from './schemas.ts';
import { type SandboxTemplate, SandboxTemplateList } from './template-schemas.ts';
import {
  ControlPlaneTransport,
  type KnownAnswer,
  type TransportOptions,
  type WalkBudget,
} from './transport.ts';

export {
  DEFAULT_TIMEOUTS,
  KNOWN_ANSWER,
  type KnownAnswer,
  type RequestEvent,
  type Timeouts,
} from './transport.ts';

export type ControlPlaneClientOptions = TransportOptions;

export type ListDeploymentsQuery = {
  nameContains?: string;
  deploymentIds?: readonly string[];
  status?: DeploymentStatus;
  /** 1 to 100. */
  limit?: number;
  offset?: number;
};

export type ListRevisionsQuery = { limit?: number; offset?: number; status?: readonly RevisionStatus[] };

export type TemplateSortBy = 'name' | 'image' | 'created_at';
export type SortDirection = 'asc' | 'desc';

export type ListSandboxTemplatesQuery = {
  nameContains?: string;
  /** 1 to 500. */
  limit?: number;
  offset?: number;
  sortBy?: TemplateSortBy;
  sortDirection?: SortDirection;
};

const DEPLOYMENTS_MAX_PAGE = 100;
const TEMPLATES_MAX_PAGE = 500;

export class ControlPlaneClient {
  readonly #transport: ControlPlaneTransport;

  /** Throws CredentialsConfigError when the credentials cannot be used. */
  constructor(options: ControlPlaneClientOptions) {
    this.#transport = new ControlPlaneTransport(options);
  }

  /** Closes the client's own pool; a shared dispatcher is left to its owner. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  // ---- deployments ----

  createDeployment(req: DeploymentCreateRequest): Promise<Deployment> {
    return this.#transport.call({
      operation: 'createDeployment',
      method: 'POST',
      route: '/v2/deployments',
      path: '/v2/deployments',
      body: req,
      namespaceChosen: true,
      schema: Deployment,
      secrets: secretValues(req.secrets),
      mismatch: (d) =>
        d.name === req.name ? undefined : `answered with deployment ${d.id} named ${d.name}, not ${req.name}`,
    });
  }

  /** `namespaceChosen`: the id is a namespace's (an adopt annotation), not one the platform gave. */
  getDeployment(deploymentId: string, opts: { namespaceChosen?: boolean } = {}): Promise<Deployment> {
    return this.#transport.call({
      operation: 'getDeployment',
      method: 'GET',
      route: '/v2/deployments/{deployment_id}',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}`,
      namespaceChosen: opts.namespaceChosen ?? false,
      schema: Deployment,
      mismatch: deploymentIdIs(deploymentId),
    });
  }

  patchDeployment(deploymentId: string, patch: DeploymentPatchRequest): Promise<Deployment> {
    return this.#transport.call({
      operation: 'patchDeployment',
      method: 'PATCH',
      route: '/v2/deployments/{deployment_id}',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}`,
      body: patch,
      namespaceChosen: true,
      schema: Deployment,
      secrets: secretValues(patch.secrets),
      mismatch: deploymentIdIs(deploymentId),
    });
  }

  /** Resolves when the control plane accepted the deletion; a 404 rejects with NotFoundError. */
  async deleteDeployment(deploymentId: string, opts: { deleteTracingProject?: boolean } = {}): Promise<void> {
    const query = new URLSearchParams();
    if (opts.deleteTracingProject !== undefined) {
      query.set('delete_tracing_project', String(opts.deleteTracingProject));
    }
    await this.#transport.call({
      operation: 'deleteDeployment',
      method: 'DELETE',
      route: '/v2/deployments/{deployment_id}',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}`,
      query,
      namespaceChosen: true,
    });
  }

  listDeployments(q?: ListDeploymentsQuery, walk?: WalkBudget): Promise<DeploymentList>;
  /** `known`: see Call.known (a page whose text the caller applied already resolves to KNOWN_ANSWER). */
  listDeployments(
    q: ListDeploymentsQuery,
    walk: WalkBudget | undefined,
    known: (text: string) => boolean,
  ): Promise<DeploymentList | KnownAnswer>;
  listDeployments(
    q: ListDeploymentsQuery = {},
    walk?: WalkBudget,
    known?: (text: string) => boolean,
  ): Promise<DeploymentList | KnownAnswer> {
    const query = new URLSearchParams();
    if (q.nameContains !== undefined) query.set('name_contains', q.nameContains);
    for (const id of q.deploymentIds ?? []) query.append('deployment_ids', id);
    if (q.status !== undefined) query.set('status', q.status);
    setPaging(query, q);
    return this.#transport.call({
      operation: 'listDeployments',
      method: 'GET',
      route: '/v2/deployments',
      path: '/v2/deployments',
      query,
      // A name filter is a namespace's deployment name; the polls by recorded id are the controller's.
      namespaceChosen: q.nameContains !== undefined,
      schema: DeploymentList,
      ...(walk ? { walk } : {}),
      ...(q.deploymentIds ? { mismatch: onlyIds(q.deploymentIds) } : {}),
      ...(known ? { known } : {}),
    });
  }

  /**
   * Every deployment the filter matches, all pages: a name substring (case-insensitive, the platform's
   * filter) and/or ids. Used by `kubectl agd import`; the controller never lists a whole tenant.
   */
  listAllDeployments(
    q: Pick<ListDeploymentsQuery, 'nameContains' | 'deploymentIds'> = {},
    opts: { pageSize?: number } = {},
  ): Promise<Deployment[]> {
    const limit = opts.pageSize ?? DEPLOYMENTS_MAX_PAGE;
    return this.#transport.allPages('listAllDeployments', limit, async (offset, walk, pageLimit) => {
      const page = await this.listDeployments({ ...q, limit: pageLimit, offset }, walk);
      return { items: page.resources, offset: page.offset };
    });
  }

  /** Every deployment whose name is exactly `name` (the listing filter is a substring match). */
  async findDeploymentsByName(name: string, opts: { pageSize?: number } = {}): Promise<Deployment[]> {
    const limit = opts.pageSize ?? DEPLOYMENTS_MAX_PAGE;
    return this.#transport.allPages(
      'findDeploymentsByName',
      limit,
      async (offset, walk, pageLimit) => {
        const page = await this.listDeployments({ nameContains: name, limit: pageLimit, offset }, walk);
        return { items: page.resources, offset: page.offset };
      },
      // Only exact matches are kept as pages arrive: a substring filter may match thousands.
      (d) => d.name === name,
      // Big deployments of others whose names contain this one must not stop the lookup for good. One
      // stepped over that had this very name makes the create fail on the platform (the name is taken).
      { skipOverSize: true },
    );
  }

  // ---- revisions ----

  getRevision(deploymentId: string, revisionId: string): Promise<Revision> {
    return this.#transport.call({
      operation: 'getRevision',
      method: 'GET',
      route: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions/${encodeURIComponent(revisionId)}`,
      schema: Revision,
      mismatch: (r) =>
        r.id === revisionId ? undefined : `answered with revision ${r.id}, not ${revisionId}`,
    });
  }

  /** Starts a new revision from an existing one's configuration (e.g. to retry a failed deploy). */
  redeployRevision(deploymentId: string, revisionId: string): Promise<Deployment> {
    return this.#transport.call({
      operation: 'redeployRevision',
      method: 'POST',
      route: '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions/${encodeURIComponent(revisionId)}/redeploy`,
      namespaceChosen: true,
      schema: Deployment,
      mismatch: deploymentIdIs(deploymentId),
    });
  }

  /** Newest first. */
  listRevisions(deploymentId: string, q: ListRevisionsQuery = {}): Promise<RevisionList> {
    const query = new URLSearchParams();
    if (q.status !== undefined && q.status.length > 0) query.set('status', q.status.join(','));
    setPaging(query, q);
    return this.#transport.call({
      operation: 'listRevisions',
      method: 'GET',
      route: '/v2/deployments/{deployment_id}/revisions',
      path: `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions`,
      query,
      schema: RevisionList,
    });
  }

  // ---- sandbox templates ----

  listSandboxTemplates(q: ListSandboxTemplatesQuery = {}, walk?: WalkBudget): Promise<SandboxTemplateList> {
    const query = new URLSearchParams();
    if (q.nameContains !== undefined) query.set('name_contains', q.nameContains);
    if (q.sortBy !== undefined) query.set('sort_by', q.sortBy);
    if (q.sortDirection !== undefined) query.set('sort_direction', q.sortDirection);
    setPaging(query, q);
    return this.#transport.call({
      operation: 'listSandboxTemplates',
      method: 'GET',
      route: '/v2/sandboxes/templates',
      path: '/v2/sandboxes/templates',
      query,
      namespaceChosen: q.nameContains !== undefined,
      schema: SandboxTemplateList,
      ...(walk ? { walk } : {}),
    });
  }

  /** Every template (whose name contains `nameContains`, case-insensitive, when given), all pages. */
  listAllSandboxTemplates(q: { nameContains?: string; pageSize?: number } = {}): Promise<SandboxTemplate[]> {
    const limit = q.pageSize ?? TEMPLATES_MAX_PAGE;
    return this.#transport.allPages('listAllSandboxTemplates', limit, async (offset, walk, pageLimit) => {
      const page = await this.listSandboxTemplates(
        {
          ...(q.nameContains === undefined ? {} : { nameContains: q.nameContains }),
          limit: pageLimit,
          offset,
        },
        walk,
      );
      return { items: page.templates, offset: page.offset };
    });
  }

  // ---- listeners ----

  listListeners(): Promise<ListenerList> {
    return this.#transport.call({
      operation: 'listListeners',
      method: 'GET',
      route: '/v2/listeners',
      path: '/v2/listeners',
      schema: ListenerList,
    });
  }
}

const deploymentIdIs =
  (id: string) =>
  (d: Deployment): string | undefined =>
    d.id === id ? undefined : `answered with deployment ${d.id}, not ${id}`;

const onlyIds = (ids: readonly string[]) => {
  const asked = new Set(ids);
  return (list: DeploymentList): string | undefined => {
    const other = list.resources.find((d) => !asked.has(d.id));
    return other ? `listed deployment ${other.id}, which was not asked for` : undefined;
  };
};

function setPaging(query: URLSearchParams, q: { limit?: number; offset?: number }): void {
  if (q.limit !== undefined) query.set('limit', String(q.limit));
  if (q.offset !== undefined) query.set('offset', String(q.offset));
}

function secretValues(secrets: readonly { value: string }[] | null | undefined): string[] {
  return (secrets ?? []).map((s) => s.value);
}
