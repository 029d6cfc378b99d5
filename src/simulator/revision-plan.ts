/**
 * The statuses a revision walks through, one step per tick: the full set the notes list, ending in
 * success, an injected failure, or an injected status the revision stays in.
 */
import type { RevisionStatus, Source } from '../controlplane/schemas.ts';

export type FailureStage = 'BUILD' | 'DEPLOY' | 'CREATE';

/** What a test injects into the next revision(s): a failure, a transient status passed through, or a hold. */
export interface RevisionScript {
  failAt?: FailureStage;
  /** Shown for one step before deploying, then the revision goes on (transient, per the notes). */
  passThrough?: 'INTERRUPTED' | 'UNKNOWN';
  /** The revision walks up to this non-terminal status and stays there. */
  hold?: RevisionStatus;
}

export function revisionPlan(source: Source, script: RevisionScript = {}): RevisionStatus[] {
  const build: RevisionStatus[] = source === 'repo_host' ? ['AWAITING_BUILD', 'BUILDING'] : [];
  const transient: RevisionStatus[] = script.passThrough ? [script.passThrough] : [];
  const upToDeploy: RevisionStatus[] = ['CREATING', 'QUEUED', ...build, ...transient, 'AWAITING_DEPLOY'];
  let plan: RevisionStatus[];
  switch (script.failAt) {
    case 'CREATE':
      plan = ['CREATING', 'CREATE_FAILED'];
      break;
    case 'BUILD':
      // external_image has no build step: it fails where the build would have been.
      plan = ['CREATING', 'QUEUED', ...build, 'BUILD_FAILED'];
      break;
    case 'DEPLOY':
      plan = [...upToDeploy, 'DEPLOYING', 'DEPLOY_FAILED'];
      break;
    default:
      plan = [...upToDeploy, 'DEPLOYING', 'DEPLOYED'];
  }
  if (script.hold === undefined) return plan;
  const at = plan.indexOf(script.hold);
  // A status not on the way (INTERRUPTED, UNKNOWN, ...) is held right after QUEUED.
  return at >= 0 ? plan.slice(0, at + 1) : ['CREATING', 'QUEUED', script.hold];
}

const TERMINAL: ReadonlySet<RevisionStatus> = new Set([
  'DEPLOYED',
  'SKIPPED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
]);

export function isTerminal(status: RevisionStatus): boolean {
  return TERMINAL.has(status);
}
