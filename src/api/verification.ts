/**
 * Post-deploy verification of an AgentDeployment: spec.verification (what the smoke run does) and
 * status.verification (the run in flight and the last completed one).
 */
import { z } from 'zod';
import { durationField, freeForm, localRef } from './common.ts';

export const Verification = z.object({
  assistantId: z
    .string()
    .min(1)
    .max(256)
    .describe('Graph id or assistant uuid the smoke run uses, e.g. agent.'),
  input: freeForm()
    .optional()
    .describe(
      'Input of the smoke run, kept as written. Defaults to {"messages": [{"role": "user", "content": "ping"}]}.',
    ),
  timeout: durationField('spec.verification.timeout', '1s', '1h')
    .optional()
    .describe('How long the smoke run may take before the verification fails (1s to 1h). Defaults to 60s.'),
  interval: durationField('spec.verification.interval', '1s', '720h')
    .optional()
    .describe('How often a verified deployment is verified again. Defaults to 10m.'),
  webhook: z
    .boolean()
    .optional()
    .describe(
      "Complete the run through the operator's webhook receiver (join stays the fallback). Defaults to true when the operator has one (--webhook-base-url); ignored otherwise.",
    ),
  credentialsSecretRef: localRef(
    "Name of a Secret in the object's namespace with key apiKey, or bearerToken with tenantId.",
  )
    .optional()
    .describe(
      "The key the agent server is called with. Without it, a URL the platform assigned (repo_host) is called with the object's control-plane credentials, and a URL the namespace chose (external_image's customUrl) without any key: the controller's and the object's control-plane keys never go to a URL a namespace chose.",
    ),
});
export type Verification = z.infer<typeof Verification>;

const VerificationAttempt = z.object({
  runId: z.string().max(64).optional().describe('Id of the smoke run (absent when it could not be created).'),
  threadId: z.string().max(64).optional().describe('Id of the thread the smoke run ran on.'),
  startedAt: z.iso.datetime().describe('When the verification started (RFC 3339).'),
  completedAt: z.iso.datetime().describe('When the verification completed (RFC 3339).'),
  outcome: z.enum(['Succeeded', 'Failed']).describe('Succeeded or Failed.'),
  runStatus: z
    .string()
    .max(64)
    .optional()
    .describe('Status the agent server reported for the run: success, error, timeout, interrupted, ...'),
  duration: z.string().max(32).optional().describe('How long the verification took, e.g. 1.25s.'),
  completedBy: z
    .enum(['join', 'webhook'])
    .optional()
    .describe('How the outcome arrived: join (the operator waited for the run) or webhook.'),
  message: z.string().max(1024).optional().describe('Why the verification failed.'),
});

export const VerificationStatus = z.object({
  revisionId: z.string().max(64).describe('Revision being verified; a new revision starts over.'),
  specDigest: z.string().max(64).describe('Digest of spec.verification; a change starts over.'),
  failures: z
    .int()
    .min(0)
    .optional()
    .describe('Consecutive failed verifications (drives the retry backoff).'),
  current: z
    .object({
      runId: z.string().max(64).describe('Id of the smoke run in flight.'),
      threadId: z.string().max(64).describe('Id of its thread.'),
      startedAt: z.iso.datetime().describe('When the verification started (RFC 3339).'),
      webhook: z
        .boolean()
        .optional()
        .describe("True when the run reports to the operator's webhook receiver."),
    })
    .optional()
    .describe('The smoke run in flight, if any.'),
  last: VerificationAttempt.optional().describe('The last completed verification.'),
  nextVerificationAt: z.iso
    .datetime()
    .optional()
    .describe('When the next verification is due (after the interval, or the retry backoff).'),
});
export type VerificationStatus = z.infer<typeof VerificationStatus>;
