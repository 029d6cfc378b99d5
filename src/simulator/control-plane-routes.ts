/** The control plane's routes, as the interface document and the notes describe them. */

import type { ValidationError } from '../controlplane/schemas.ts';
import {
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  DeploymentStatus,
  type Listener,
  RevisionStatus,
} from '../controlplane/schemas.ts';
import type { SandboxTemplate } from '../controlplane/template-schemas.ts';
import {
  checkCreateRequired,
  checkRequestFields,
  checkSourceFields,
  checkTagRule,
  findImmutableChange,
} from './deployment-rules.ts';
import { HttpError, type Reply, type RequestContext, type Route } from './http.ts';
import { type Presentation, presentDeployment, presentTemplate } from './present.ts';
import type { DeploymentStore, StoredDeployment } from './store.ts';
import { filterAndSortTemplates, SORT_DIRECTIONS, stableUuid, TEMPLATE_SORT_FIELDS } from './templates.ts';
import {
  boolParam,
  enumListParam,
  enumParam,
  failIfAny,
  intParam,
  isUuid,
  listParam,
  parseOrFail,
  uuidError,
} from './validation.ts';

export interface ControlPlaneState {
  store: DeploymentStore;
  templates: () => SandboxTemplate[];
  listeners: () => Listener[];
  presentation: () => Presentation;
}

const ok = (body: unknown, status = 200): Reply => ({ status, body });

/** Reads limit and offset; `slice` cuts a page out of the matching items. */
function page(query: URLSearchParams, maxLimit: number, fallbackLimit: number) {
  const errors: ValidationError[] = [];
  const limit = intParam(query, 'limit', { min: 1, max: maxLimit, fallback: fallbackLimit }, errors);
  const offset = intParam(query, 'offset', { min: 0, fallback: 0 }, errors);
  return { errors, slice: <T>(items: readonly T[]) => items.slice(offset, offset + limit), offset };
}

function pathUuid(ctx: RequestContext, name: string): string {
  const value = ctx.params[name] ?? '';
  if (!isUuid(value)) failIfAny([uuidError(['path', name])]);
  return value;
}

function mustFind(store: DeploymentStore, id: string): StoredDeployment {
  const deployment = store.get(id);
  if (!deployment) throw new HttpError(404, `Deployment ${id} not found`);
  return deployment;
}

/** A deployment being deleted takes no more changes. */
function mustNotBeDeleting(store: DeploymentStore, id: string): void {
  if (store.isDeleting(id)) throw new HttpError(409, `Deployment ${id} is being deleted`);
}

export function controlPlaneRoutes(state: ControlPlaneState): Route[] {
  const { store } = state;
  const present = (deployment: StoredDeployment) => presentDeployment(deployment, state.presentation());

  const listDeployments = (ctx: RequestContext): Reply => {
    const errors: ValidationError[] = [];
    const ids = listParam(ctx.query, 'deployment_ids');
    ids.forEach((id, index) => {
      if (!isUuid(id)) errors.push(uuidError(['query', 'deployment_ids', index]));
    });
    const status = enumParam(ctx.query, 'status', DeploymentStatus.options, errors);
    const needle = ctx.query.get('name_contains')?.toLowerCase();
    // From the store's indexes where the query names ids or a name (the controller's poll and lookups).
    const candidates =
      ids.length > 0 ? store.listByIds(ids) : needle ? store.listByName(needle) : store.list();
    const matching = candidates
      .filter((d) => !needle || d.name.toLowerCase().includes(needle))
      .filter((d) => ids.length === 0 || ids.includes(d.id))
      .filter((d) => !status || d.status === status);
    const paged = page(ctx.query, 100, 20);
    failIfAny([...errors, ...paged.errors]);
    const resources = paged.slice(matching).map(present);
    return ok({ resources, offset: paged.offset + resources.length });
  };

  const createDeployment = (ctx: RequestContext): Reply => {
    const request = parseOrFail(DeploymentCreateRequest, ctx.body, ['body']);
    failIfAny([
      ...checkRequestFields(request.source_config),
      ...checkSourceFields(request.source, request.source_config, request.source_revision_config),
      ...checkTagRule(request.source_config.build_on_push, request.source_revision_config.repo_ref),
      ...checkCreateRequired(request.source, request.source_config, request.source_revision_config),
    ]);
    if (store.findByName(request.name)) {
      throw new HttpError(400, `A deployment named ${request.name} already exists`);
    }
    return ok(present(store.create(request)), 201);
  };

  const getDeployment = (ctx: RequestContext): Reply =>
    ok(present(mustFind(store, pathUuid(ctx, 'deployment_id'))));

  const patchDeployment = (ctx: RequestContext): Reply => {
    const id = pathUuid(ctx, 'deployment_id');
    // name and source are not patch fields; sent anyway, a different value is the immutable-field 400.
    const isObject = ctx.body !== null && typeof ctx.body === 'object' && !Array.isArray(ctx.body);
    const { name, source, ...rest } = isObject ? (ctx.body as Record<string, unknown>) : {};
    const patch = parseOrFail(DeploymentPatchRequest, isObject ? rest : ctx.body, ['body']);
    failIfAny(checkRequestFields(patch.source_config));
    const deployment = mustFind(store, id);
    mustNotBeDeleting(store, id);
    const immutable = findImmutableChange(deployment, { name, source, source_config: patch.source_config });
    if (immutable) throw new HttpError(400, `${immutable} cannot be changed after creation`);
    const sourceConfig = patch.source_config ?? {};
    const revisionConfig = patch.source_revision_config ?? {};
    failIfAny([
      ...checkSourceFields(deployment.source, sourceConfig, revisionConfig),
      ...checkTagRule(
        sourceConfig.build_on_push ?? deployment.source_config.build_on_push,
        revisionConfig.repo_ref ?? deployment.source_revision_config.repo_ref,
      ),
    ]);
    const secrets = patch.secrets && patch.secrets.length > 0 ? patch.secrets : undefined;
    const newRevision =
      [revisionConfig.repo_ref, revisionConfig.graph_config_path, revisionConfig.image_uri].some(
        (v) => v !== null && v !== undefined,
      ) ||
      secrets !== undefined ||
      (sourceConfig.resource_spec !== null && sourceConfig.resource_spec !== undefined);
    const updated = store.update(id, {
      source_config: sourceConfig,
      source_revision_config: revisionConfig,
      ...(secrets ? { secrets } : {}),
      newRevision,
    });
    return ok(present(updated));
  };

  const deleteDeployment = (ctx: RequestContext): Reply => {
    const id = pathUuid(ctx, 'deployment_id');
    const errors: ValidationError[] = [];
    boolParam(ctx.query, 'delete_tracing_project', false, errors);
    failIfAny(errors);
    mustFind(store, id);
    store.startDeletion(id);
    return { status: 204 };
  };

  const listRevisions = (ctx: RequestContext): Reply => {
    const id = pathUuid(ctx, 'deployment_id');
    const errors: ValidationError[] = [];
    const statuses = enumListParam(ctx.query, 'status', RevisionStatus.options, errors);
    const paged = page(ctx.query, 100, 20);
    failIfAny([...errors, ...paged.errors]);
    mustFind(store, id);
    const matching = store.revisions(id).filter((r) => statuses.length === 0 || statuses.includes(r.status));
    const resources = paged.slice(matching);
    return ok({ resources, offset: paged.offset + resources.length });
  };

  const revisionIn = (ctx: RequestContext) => {
    const id = pathUuid(ctx, 'deployment_id');
    const revisionId = pathUuid(ctx, 'revision_id');
    mustFind(store, id);
    const revision = store.revision(id, revisionId);
    if (!revision) throw new HttpError(404, `Revision ${revisionId} not found`);
    return { id, revision };
  };

  const getRevision = (ctx: RequestContext): Reply => ok(revisionIn(ctx).revision);

  const redeploy = (ctx: RequestContext): Reply => {
    const { id, revision } = revisionIn(ctx);
    mustNotBeDeleting(store, id);
    const deployment = store.redeploy(id, revision.id);
    if (!deployment) throw new HttpError(404, `Revision ${revision.id} not found`);
    return ok(present(deployment));
  };

  const listTemplates = (ctx: RequestContext): Reply => {
    const errors: ValidationError[] = [];
    const sortBy = enumParam(ctx.query, 'sort_by', TEMPLATE_SORT_FIELDS, errors) ?? 'created_at';
    const direction = enumParam(ctx.query, 'sort_direction', SORT_DIRECTIONS, errors) ?? 'desc';
    const nameContains = ctx.query.get('name_contains') ?? undefined;
    const matching = filterAndSortTemplates(state.templates(), { nameContains, sortBy, direction });
    const paged = page(ctx.query, 500, 100);
    failIfAny([...errors, ...paged.errors]);
    const templates = paged.slice(matching).map((t) => presentTemplate(t, state.presentation()));
    return ok({ templates, offset: paged.offset + templates.length });
  };

  const listListeners = (ctx: RequestContext): Reply => {
    const paged = page(ctx.query, 100, 20);
    failIfAny(paged.errors);
    const resources = paged.slice(state.listeners());
    return ok({ resources, offset: paged.offset + resources.length });
  };

  const installIntegration = (ctx: RequestContext): Reply => {
    const repoHost = ctx.params.repo_host ?? '';
    const id = stableUuid(`integration:${repoHost}`);
    return ok({
      id,
      integration_id: id,
      repo_host: repoHost,
      installed: true,
    });
  };

  const deployment = '/v2/deployments/{deployment_id}';
  const revision = `${deployment}/revisions/{revision_id}`;
  return [
    { method: 'GET', template: '/v2/deployments', handler: listDeployments },
    { method: 'POST', template: '/v2/deployments', handler: createDeployment },
    { method: 'GET', template: deployment, handler: getDeployment },
    { method: 'PATCH', template: deployment, handler: patchDeployment },
    { method: 'DELETE', template: deployment, handler: deleteDeployment },
    { method: 'GET', template: `${deployment}/revisions`, handler: listRevisions },
    { method: 'GET', template: revision, handler: getRevision },
    { method: 'POST', template: `${revision}/redeploy`, handler: redeploy },
    { method: 'GET', template: '/v2/sandboxes/templates', handler: listTemplates },
    { method: 'GET', template: '/v2/listeners', handler: listListeners },
    { method: 'GET', template: '/v1/integrations/{repo_host}/install', handler: installIntegration },
  ];
}
