/**
 * Safe rollouts of an AgentDeployment: spec.remediation (what happens when the latest revision fails),
 * spec.revisionHistoryLimit, and status.history (the last revisions, their configuration and outcome)
 * with status.lastGoodRevision. The decisions are in reconcile/agentdeployment/history.ts and reconcile/agentdeployment/remediation.ts.
 */
import { z } from 'zod';

/** These names exactly: scripts and dashboards depend on them. Absent means None. */
export const RemediationStrategy = z.enum(['None', 'Rollback']);
export type RemediationStrategy = z.infer<typeof RemediationStrategy>;

export const DEFAULT_VERIFICATION_FAILURES = 1;
export const DEFAULT_REVISION_HISTORY_LIMIT = 5;
export const MAX_REVISION_HISTORY_LIMIT = 10;

export const Remediation = z.object({
  strategy: RemediationStrategy.optional().describe(
    "What happens when the latest revision fails: None (the default) reports it and waits for a person; Rollback redeploys status.lastGoodRevision once (after spec.retry's redeploys of the failed revision), verifies it, and reports Stalled (RolledBack) until the spec changes or the reconcile-requested-at annotation gets a new value. Never a retry after a rollback, never a second rollback for the same spec.",
  ),
  verificationFailures: z
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe(
      'Failed verifications in a row of a DEPLOYED latest revision (spec.verification) after which it is rolled back; 0: a failed verification never rolls back, only a failed deploy does. Defaults to 1.',
    ),
  allowRollback: z
    .boolean()
    .optional()
    .describe(
      "Whether a rollback (the Rollback strategy's, or kubectl agd undo) goes through while the object's own spec.deploymentWindows hold changes: it restores a revision that deployed. Defaults to true; false holds it until they open. A DeploymentWindowPolicy's windows follow the policy's own allowRollback.",
    ),
});
export type Remediation = z.infer<typeof Remediation>;

/** Why a revision exists, as far as the controller knows. */
export const RevisionTrigger = z.enum(['Spec', 'Retry', 'Request', 'Rollback', 'Revert', 'Platform']);
export type RevisionTrigger = z.infer<typeof RevisionTrigger>;

export const RevisionOutcome = z.enum(['Deployed', 'Failed', 'RolledBack', 'Superseded']);
export type RevisionOutcome = z.infer<typeof RevisionOutcome>;

export const HistoryEntry = z.object({
  id: z.string().max(64).describe('Id of the revision on the control plane.'),
  image: z.string().max(512).optional().describe('external_image: the image the revision runs.'),
  repoRef: z.string().max(256).optional().describe('repo_host: the ref the revision was built from.'),
  repoCommitSha: z.string().max(64).optional().describe('repo_host: the commit, when the platform says.'),
  graphConfigPath: z.string().max(512).optional().describe('repo_host: the graph configuration file.'),
  secretsDigest: z
    .string()
    .max(256)
    .optional()
    .describe('Keyed digest of the secrets the revision runs with (never a value).'),
  resourceSpecDigest: z.string().max(80).optional().describe('Digest of the resource spec it runs with.'),
  trigger: RevisionTrigger.describe(
    'What made the revision: Spec (a create or a PATCH), Retry (spec.retry), Request (the redeploy annotation), Rollback, Revert (a spec equal to an earlier revision: redeployed, no build), Platform (made by the platform itself, e.g. build on push).',
  ),
  redeployOf: z.string().max(64).optional().describe('For a redeploy: the revision it redeployed.'),
  windowOverride: z
    .string()
    .max(256)
    .optional()
    .describe('Made through a closed deployment window by the override-window annotation: its reason.'),
  generation: z
    .int()
    .min(0)
    .optional()
    .describe('metadata.generation of the spec the revision was made for.'),
  status: z
    .string()
    .max(64)
    .optional()
    .describe('Last status seen, e.g. DEPLOYING, DEPLOYED, DEPLOY_FAILED.'),
  outcome: RevisionOutcome.optional().describe(
    'Deployed (see verification for whether it answers), Failed (the platform failed it), RolledBack (it failed, its deploy or its verification, and a rollback replaced it) or Superseded; absent while in progress.',
  ),
  verification: z
    .enum(['Succeeded', 'Failed'])
    .optional()
    .describe('The last verification of the revision (spec.verification).'),
  analysis: z
    .enum(['Running', 'Successful', 'Failed', 'Inconclusive'])
    .optional()
    .describe(
      'The phase of its analysis (spec.analysis), if it had one; a revision whose analysis did not succeed is never the last good one.',
    ),
  pruned: z
    .boolean()
    .optional()
    .describe(
      'The platform no longer has the revision (a redeploy of it answered 404): never redeployed again.',
    ),
  createdAt: z.iso.datetime().optional().describe('When the controller first knew the revision.'),
  finishedAt: z.iso.datetime().optional().describe('When its outcome was known.'),
  verifiedAt: z.iso.datetime().optional().describe('When its verification result was known.'),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const History = z
  .array(HistoryEntry)
  .max(MAX_REVISION_HISTORY_LIMIT)
  .describe(
    'The last revisions (spec.revisionHistoryLimit, default 5, at most 10), newest first, with their configuration digest, outcome and verification; the last good revision is always kept.',
  );
