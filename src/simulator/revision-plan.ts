/** The statuses a revision walks through, one step per tick, ending in success or an injected failure. */
import type { RevisionStatus, Source } from '../controlplane/schemas.ts';

export type FailureStage = 'BUILD' | 'DEPLOY' | 'CREATE';

export function revisionPlan(source: Source, failAt?: FailureStage): RevisionStatus[] {
  const build: RevisionStatus[] = source === 'repo_host' ? ['BUILDING'] : [];
  switch (failAt) {
    case 'CREATE':
      return ['CREATING', 'CREATE_FAILED'];
    case 'BUILD':
      // external_image has no build step: it fails where the build would have been.
      return ['CREATING', 'QUEUED', ...build, 'BUILD_FAILED'];
    case 'DEPLOY':
      return ['CREATING', 'QUEUED', ...build, 'DEPLOYING', 'DEPLOY_FAILED'];
    default:
      return ['CREATING', 'QUEUED', ...build, 'DEPLOYING', 'DEPLOYED'];
  }
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
