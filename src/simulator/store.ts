/**
 * The simulator's in-memory control plane: deployments, their revisions and the clock that moves each
 * revision through its statuses. Knows nothing about HTTP.
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  Deployment,
  ResourceSpec,
  Revision,
  RevisionStatus,
  Secret,
  Source,
  SourceConfig,
  SourceRevisionConfig,
} from '../controlplane/schemas.ts';
import { normaliseResourceSpec } from '../translate/normalise.ts';
import { DeletionClock } from './deletion-clock.ts';
import { isTerminal, revisionPlan } from './revision-plan.ts';
import { type FailRevisionsRule, RevisionScripts, type ScriptRevisionsRule } from './revision-scripts.ts';

export type StoredDeployment = Deployment & { source_config: SourceConfig; secrets: Secret[] };

type StoredRevision = Revision & {
  deploymentId: string;
  plan: RevisionStatus[];
  step: number;
  timer?: NodeJS.Timeout;
};

export interface NewDeployment {
  name: string;
  source: Source;
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: Secret[];
}

export interface DeploymentChanges {
  source_config?: Partial<SourceConfig>;
  source_revision_config?: Partial<SourceRevisionConfig>;
  secrets?: Secret[];
  newRevision: boolean;
}

const now = () => new Date().toISOString();

function dropNulls<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/** A stable fake commit sha: the same repository and ref give the same sha. */
export function fakeCommitSha(
  repoUrl: string | null | undefined,
  repoRef: string | null | undefined,
): string {
  return createHash('sha1')
    .update(`${repoUrl ?? ''}@${repoRef ?? ''}`)
    .digest('hex');
}

export class DeploymentStore {
  readonly #deployments = new Map<string, StoredDeployment>();
  /**
   * Per deployment, its place in the order of creation and its name in lower case: a listing by ids
   * or by name answers from them rather than walking every deployment (a walk per page of 100 ids
   * makes a poll of N deployments cost N²/100 steps: at 10,000 the simulator, not the controller,
   * would be what grows with N on a benchmark's shared cores).
   */
  readonly #created = new Map<string, { order: number; lowerName: string }>();
  #creations = 0;
  readonly #revisions = new Map<string, StoredRevision[]>(); // newest first
  readonly #scripts = new RevisionScripts();
  readonly #deletions: DeletionClock;
  readonly #pushes = new Map<string, number>();
  readonly #stepMs: number;
  readonly #customUrlFor: (id: string) => string;

  constructor(options: { stepMs: number; customUrlFor: (id: string) => string }) {
    this.#stepMs = options.stepMs;
    this.#customUrlFor = options.customUrlFor;
    this.#deletions = new DeletionClock(options.stepMs, {
      exists: (id) => this.#deployments.has(id),
      show: (id, status) => {
        const deployment = this.#mustGet(id);
        deployment.status = status;
        deployment.updated_at = now();
      },
      remove: (id) => this.delete(id),
    });
  }

  /** Deployments, newest first. */
  list(): StoredDeployment[] {
    return [...this.#deployments.values()].reverse();
  }

  get(id: string): StoredDeployment | undefined {
    return this.#deployments.get(id);
  }

  /** The deployments of `ids` (each once, unknown ones left out), newest first as list() orders them. */
  listByIds(ids: readonly string[]): StoredDeployment[] {
    return this.#newestFirst(new Set(ids));
  }

  /** The deployments whose name contains `needle` in any case, newest first as list() orders them. */
  listByName(needle: string): StoredDeployment[] {
    const lower = needle.toLowerCase();
    const ids = new Set<string>();
    for (const [id, { lowerName }] of this.#created) if (lowerName.includes(lower)) ids.add(id);
    return this.#newestFirst(ids);
  }

  #newestFirst(ids: ReadonlySet<string>): StoredDeployment[] {
    const order = (d: StoredDeployment) => this.#created.get(d.id)?.order ?? 0;
    return [...ids].flatMap((id) => this.#deployments.get(id) ?? []).sort((a, b) => order(b) - order(a));
  }

  /** Deleting deployments are found too: the name stays taken until the deployment is gone. */
  findByName(name: string): StoredDeployment | undefined {
    return this.listByName(name).find((d) => d.name === name);
  }

  revisions(deploymentId: string): Revision[] {
    return (this.#revisions.get(deploymentId) ?? []).map(publicRevision);
  }

  revision(deploymentId: string, revisionId: string): Revision | undefined {
    const found = this.#revisions.get(deploymentId)?.find((r) => r.id === revisionId);
    return found && publicRevision(found);
  }

  create(input: NewDeployment): StoredDeployment {
    const id = randomUUID();
    const at = now();
    const sourceConfig = dropNulls({ ...input.source_config });
    if (sourceConfig.resource_spec)
      sourceConfig.resource_spec = normaliseResourceSpec(sourceConfig.resource_spec);
    if (input.source === 'repo_host') sourceConfig.custom_url = this.#customUrlFor(id);
    const deployment: StoredDeployment = {
      id,
      name: input.name,
      source: input.source,
      source_config: sourceConfig,
      source_revision_config: dropNulls({ ...input.source_revision_config }),
      secrets: input.secrets.map((s) => ({ ...s })),
      created_at: at,
      updated_at: at,
      status: 'AWAITING_DATABASE',
      latest_revision_id: null,
      active_revision_id: null,
      image_version: null,
    };
    this.#deployments.set(id, deployment);
    this.#created.set(id, { order: this.#creations++, lowerName: input.name.toLowerCase() });
    this.#revisions.set(id, []);
    this.#startRevision(deployment, deployment.source_revision_config);
    return deployment;
  }

  update(id: string, changes: DeploymentChanges): StoredDeployment {
    const deployment = this.#mustGet(id);
    const config = { ...deployment.source_config, ...dropNulls(changes.source_config ?? {}) };
    if (changes.source_config?.resource_spec) {
      config.resource_spec = normaliseResourceSpec(changes.source_config.resource_spec as ResourceSpec);
    }
    deployment.source_config = config;
    if (changes.secrets) deployment.secrets = changes.secrets.map((s) => ({ ...s }));
    deployment.updated_at = now();
    if (changes.newRevision) {
      const revisionConfig = {
        ...deployment.source_revision_config,
        ...dropNulls(changes.source_revision_config ?? {}),
      };
      this.#startRevision(deployment, revisionConfig);
    }
    return deployment;
  }

  /** Starts a new revision from an existing one's configuration. */
  redeploy(id: string, revisionId: string): StoredDeployment | undefined {
    const deployment = this.#mustGet(id);
    const revision = this.#revisions.get(id)?.find((r) => r.id === revisionId);
    if (!revision) return undefined;
    deployment.updated_at = now();
    // The redeployed revision's source_revision_config, its commit included (the notes).
    const config = revision.source_revision_config;
    this.#startRevision(deployment, { ...config }, config.repo_commit_sha ?? undefined);
    return deployment;
  }

  /**
   * A push to the repository of a `repo_host` deployment with `build_on_push`: the platform builds a
   * new revision of the same ref at a new commit (the given sha, or one made up). Undefined when the
   * deployment does not build on push.
   */
  push(id: string, commitSha?: string): StoredDeployment | undefined {
    const deployment = this.#mustGet(id);
    if (deployment.source !== 'repo_host' || deployment.source_config.build_on_push !== true)
      return undefined;
    const pushes = (this.#pushes.get(id) ?? 0) + 1;
    this.#pushes.set(id, pushes);
    const config = deployment.source_revision_config;
    const sha =
      commitSha ?? fakeCommitSha(deployment.source_config.repo_url, `${config.repo_ref}#push${pushes}`);
    deployment.updated_at = now();
    this.#startRevision(deployment, { ...config }, sha);
    return deployment;
  }

  /**
   * Forgets all but the newest `keep` revisions (the active one is kept too), as a platform that prunes
   * its history does: a redeploy of a forgotten revision answers 404.
   */
  pruneRevisions(id: string, keep: number): void {
    const deployment = this.#mustGet(id);
    const revisions = this.#revisions.get(id) ?? [];
    const kept = revisions.filter((r, i) => i < keep || r.id === deployment.active_revision_id);
    for (const dropped of revisions) if (!kept.includes(dropped)) clearTimeout(dropped.timer);
    this.#revisions.set(id, kept);
  }

  /** The source_revision_config of the revision the deployment serves, if any. */
  activeRevisionConfig(id: string): SourceRevisionConfig | undefined {
    const deployment = this.#deployments.get(id);
    const active = this.#revisions.get(id)?.find((r) => r.id === deployment?.active_revision_id);
    return active && { ...active.source_revision_config };
  }

  isDeleting(id: string): boolean {
    return this.#deletions.has(id);
  }

  /**
   * Starts the asynchronous deletion: AWAITING_DELETE, then AWAITING_FINAL_DELETE, then gone, one
   * revision step each (held in AWAITING_DELETE while deletions are held). Deleting again changes nothing.
   */
  startDeletion(id: string): void {
    this.#mustGet(id);
    if (this.#deletions.has(id)) return;
    for (const revision of this.#revisions.get(id) ?? []) clearTimeout(revision.timer);
    this.#deletions.start(id);
  }

  /** While held, deletions stay in AWAITING_DELETE; releasing lets them go on. */
  holdDeletions(hold: boolean): void {
    this.#deletions.hold(hold);
  }

  /** Removes the deployment at once (also the end of an asynchronous deletion). */
  delete(id: string): boolean {
    const existed = this.#deployments.delete(id);
    this.#created.delete(id);
    for (const revision of this.#revisions.get(id) ?? []) clearTimeout(revision.timer);
    this.#deletions.forget(id);
    this.#revisions.delete(id);
    return existed;
  }

  failRevisions(rule: FailRevisionsRule): void {
    this.#scripts.fail(rule);
  }

  scriptRevisions(rule: ScriptRevisionsRule): void {
    this.#scripts.script(rule);
  }

  /** Sets a deployment's status as a test needs it (any string: the platform may send a new value). */
  setDeploymentStatus(id: string, status: string): void {
    const deployment = this.#mustGet(id);
    deployment.status = status as StoredDeployment['status'];
    deployment.updated_at = now();
  }

  /** Sets a revision's status and stops its clock (any string, as for the deployment). */
  setRevisionStatus(deploymentId: string, revisionId: string, status: string): boolean {
    const revision = this.#revisions.get(deploymentId)?.find((r) => r.id === revisionId);
    if (!revision) return false;
    clearTimeout(revision.timer);
    revision.plan = [];
    revision.status = status as RevisionStatus;
    revision.updated_at = now();
    if (status === 'DEPLOYED') this.#activate(revision);
    return true;
  }

  close(): void {
    for (const revisions of this.#revisions.values()) {
      for (const revision of revisions) clearTimeout(revision.timer);
    }
    this.#deletions.close();
  }

  #mustGet(id: string): StoredDeployment {
    const deployment = this.#deployments.get(id);
    if (!deployment) throw new Error(`deployment ${id} not in store`);
    return deployment;
  }

  #startRevision(deployment: StoredDeployment, config: SourceRevisionConfig, commitSha?: string): void {
    const revisions = this.#revisions.get(deployment.id) ?? [];
    const at = now();
    for (const older of revisions) {
      if (!isTerminal(older.status)) {
        clearTimeout(older.timer);
        older.status = 'SKIPPED';
        older.updated_at = at;
      }
    }
    const revisionConfig: SourceRevisionConfig =
      deployment.source === 'repo_host'
        ? {
            ...config,
            repo_commit_sha: commitSha ?? fakeCommitSha(deployment.source_config.repo_url, config.repo_ref),
          }
        : { ...config };
    const plan = revisionPlan(
      deployment.source,
      this.#scripts.take(deployment.name, revisionConfig.repo_ref ?? undefined),
    );
    const revision: StoredRevision = {
      id: randomUUID(),
      status: plan[0] ?? 'CREATING',
      source_revision_config: revisionConfig,
      created_at: at,
      updated_at: at,
      deploymentId: deployment.id,
      plan,
      step: 0,
    };
    revisions.unshift(revision);
    this.#revisions.set(deployment.id, revisions);
    deployment.latest_revision_id = revision.id;
    deployment.source_revision_config = { ...revisionConfig };
    this.#scheduleStep(revision);
  }

  #scheduleStep(revision: StoredRevision): void {
    revision.timer = setTimeout(() => this.#advance(revision), this.#stepMs);
    revision.timer.unref();
  }

  #advance(revision: StoredRevision): void {
    revision.step += 1;
    const status = revision.plan[revision.step];
    if (!status) return;
    revision.status = status;
    revision.updated_at = now();
    if (status === 'DEPLOYED') this.#activate(revision);
    if (!isTerminal(status)) this.#scheduleStep(revision);
  }

  #activate(revision: StoredRevision): void {
    const deployment = this.#deployments.get(revision.deploymentId);
    if (!deployment) return;
    deployment.active_revision_id = revision.id;
    deployment.status = 'READY';
    deployment.image_version =
      deployment.source === 'external_image'
        ? (revision.source_revision_config.image_uri ?? null)
        : `sim-${(revision.source_revision_config.repo_commit_sha ?? revision.id).slice(0, 12)}`;
    deployment.updated_at = revision.updated_at;
  }
}

function publicRevision(revision: StoredRevision): Revision {
  return {
    id: revision.id,
    status: revision.status,
    source_revision_config: { ...revision.source_revision_config },
    created_at: revision.created_at,
    updated_at: revision.updated_at,
  };
}
