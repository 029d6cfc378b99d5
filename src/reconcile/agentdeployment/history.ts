/**
 * status.history, pure: the last revisions of the deployment with the configuration each runs (its source,
 * and digests of its secrets and resource spec), what made it, its outcome, verification and analysis;
 * and status.lastGoodRevision, the newest that deployed, verified (spec.verification) and whose analysis,
 * if any, succeeded. The followRevision gate and the verification and analysis stages feed it what they
 * see; remediation.ts decides from it.
 */
import {
  DEFAULT_REVISION_HISTORY_LIMIT,
  type HistoryEntry,
  MAX_REVISION_HISTORY_LIMIT,
  type RevisionOutcome,
  type RevisionTrigger,
} from '../../api/remediation.ts';
import { revisionPhase } from '../../controlplane/progress.ts';
import type { DeploymentCreateRequest, SourceRevisionConfig } from '../../controlplane/schemas.ts';
import { normaliseResourceSpec } from '../../translate/normalise.ts';
import { plainDigest } from '../../translate/secrets.ts';

/** What a revision runs: its source, and the secrets and resource spec the deployment gives it. */
export type RevisionConfig = Pick<
  HistoryEntry,
  'image' | 'repoRef' | 'repoCommitSha' | 'graphConfigPath' | 'secretsDigest' | 'resourceSpecDigest'
>;

/** The fields of a history entry that say what its revision runs. */
export const CONFIG_KEYS = [
  'image',
  'repoRef',
  'repoCommitSha',
  'graphConfigPath',
  'secretsDigest',
  'resourceSpecDigest',
] as const satisfies readonly (keyof RevisionConfig)[];

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;

/** The configuration the spec asks for (no commit: the platform says which one a ref builds). */
export function desiredConfig(request: DeploymentCreateRequest, secretsDigest: string): RevisionConfig {
  const src = request.source_revision_config;
  const resources = request.source_config.resource_spec;
  return defined({
    image: src.image_uri ?? undefined,
    repoRef: src.repo_ref ?? undefined,
    graphConfigPath: src.graph_config_path ?? undefined,
    secretsDigest,
    resourceSpecDigest: plainDigest(resources ? normaliseResourceSpec(resources) : null),
  });
}

/**
 * A platform string cut to the status schema's limit: an over-long value (untrusted input) must not make
 * every status write fail. A cut value matches nothing, so it is never redeployed by mistake.
 */
export function clip(value: string | null | undefined, max: number): string | undefined {
  if (value === null || value === undefined) return undefined;
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** A revision's source as the platform reports it, with the secrets and resource spec of `around`. */
export function configOfRevision(source: SourceRevisionConfig, around: RevisionConfig): RevisionConfig {
  return defined({
    image: clip(source.image_uri, 512),
    repoRef: clip(source.repo_ref, 256),
    repoCommitSha: clip(source.repo_commit_sha, 64),
    graphConfigPath: clip(source.graph_config_path, 512),
    secretsDigest: around.secretsDigest,
    resourceSpecDigest: around.resourceSpecDigest,
  });
}

export const configOf = (entry: HistoryEntry): RevisionConfig =>
  defined(Object.fromEntries(CONFIG_KEYS.map((k) => [k, entry[k]])) as RevisionConfig);

/** The same image, or the same ref and graph path (and commit, when both know it). */
export function sameSource(a: RevisionConfig, b: RevisionConfig): boolean {
  const commits = a.repoCommitSha !== undefined && b.repoCommitSha !== undefined;
  return (
    a.image === b.image &&
    a.repoRef === b.repoRef &&
    a.graphConfigPath === b.graphConfigPath &&
    (!commits || a.repoCommitSha === b.repoCommitSha)
  );
}

/** What the spec asks equals what the revision ran: its source, secrets and resource spec. */
export const sameConfig = (a: RevisionConfig, b: RevisionConfig): boolean =>
  sameSource(a, b) && a.secretsDigest === b.secretsDigest && a.resourceSpecDigest === b.resourceSpecDigest;

export const historyLimitOf = (spec: { revisionHistoryLimit?: number | undefined }): number =>
  Math.min(MAX_REVISION_HISTORY_LIMIT, spec.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT);

/**
 * The newest revision that deployed and, when verification is asked for, verified; one analysed
 * (spec.analysis) only once its analysis succeeded.
 */
export function lastGood(
  history: readonly HistoryEntry[],
  verificationRequired: boolean,
): string | undefined {
  return history.find(
    (e) =>
      e.outcome === 'Deployed' &&
      !e.pruned &&
      (!verificationRequired || e.verification === 'Succeeded') &&
      (e.analysis === undefined || e.analysis === 'Successful'),
  )?.id;
}

/** Keeps the newest `limit` entries, the last good one always among them (it replaces the oldest kept). */
function prune(history: HistoryEntry[], limit: number, good: string | undefined): HistoryEntry[] {
  if (history.length <= limit) return history;
  const kept = history.slice(0, limit);
  const goodEntry = history.find((e) => e.id === good);
  if (!goodEntry || kept.includes(goodEntry)) return kept;
  return [...kept.slice(0, limit - 1), goodEntry];
}

export interface NewRevision {
  id: string;
  config: RevisionConfig;
  trigger: RevisionTrigger;
  redeployOf?: string | undefined;
  generation: number;
  at: string;
}

/**
 * A revision the controller made (or first saw) goes in front; older ones still in progress were superseded
 * by it. Known already: unchanged.
 */
export function addRevision(
  history: readonly HistoryEntry[],
  revision: NewRevision,
  options: { limit: number; verificationRequired: boolean },
): HistoryEntry[] {
  if (history.some((e) => e.id === clip(revision.id, 64))) return [...history];
  const entry: HistoryEntry = defined({
    id: clip(revision.id, 64) as string,
    ...revision.config,
    trigger: revision.trigger,
    redeployOf: revision.redeployOf,
    generation: revision.generation,
    createdAt: revision.at,
  });
  const older = history.map((e) =>
    e.outcome === undefined ? { ...e, outcome: 'Superseded' as const, finishedAt: revision.at } : e,
  );
  const next = [entry, ...older];
  return prune(next, options.limit, lastGood(next, options.verificationRequired));
}

const OUTCOME_OF_PHASE: Partial<Record<ReturnType<typeof revisionPhase>, RevisionOutcome>> = {
  deployed: 'Deployed',
  failed: 'Failed',
  superseded: 'Superseded',
};

/** The revision's status as read this pass: its outcome once it ended (a RolledBack one stays so). */
export function observeStatus(
  history: readonly HistoryEntry[],
  id: string,
  status: string,
  at: string,
): HistoryEntry[] {
  return history.map((e) => {
    if (e.id !== id || e.status === clip(status, 64)) return e;
    const outcome = OUTCOME_OF_PHASE[revisionPhase(status)];
    // A failure the controller recorded (Failed, RolledBack) is final; so is no outcome yet.
    const keep = !outcome || e.outcome === outcome || e.outcome === 'RolledBack' || e.outcome === 'Failed';
    const seen = clip(status, 64);
    return keep ? { ...e, status: seen } : { ...e, status: seen, outcome, finishedAt: at };
  });
}

/** A verification result of a revision; a failed one makes a Deployed revision no longer good. */
export function observeVerification(
  history: readonly HistoryEntry[],
  id: string,
  result: 'Succeeded' | 'Failed',
  at: string,
): HistoryEntry[] {
  return history.map((e) =>
    e.id === id && e.verification !== result ? { ...e, verification: result, verifiedAt: at } : e,
  );
}

/** The phase of a revision's analysis (spec.analysis). */
export function observeAnalysisPhase(
  history: readonly HistoryEntry[],
  id: string,
  phase: NonNullable<HistoryEntry['analysis']>,
): HistoryEntry[] {
  return history.map((e) => (e.id === id && e.analysis !== phase ? { ...e, analysis: phase } : e));
}

/** The failed revision a rollback replaced. */
export function markRolledBack(history: readonly HistoryEntry[], id: string, at: string): HistoryEntry[] {
  return history.map((e) => (e.id === id ? { ...e, outcome: 'RolledBack', finishedAt: at } : e));
}

/** The platform no longer has the revision (a redeploy answered 404): it is never redeployed again. */
export function markPruned(history: readonly HistoryEntry[], id: string): HistoryEntry[] {
  return history.map((e) => (e.id === id ? { ...e, pruned: true } : e));
}
