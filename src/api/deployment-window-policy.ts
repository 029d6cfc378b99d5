/**
 * DeploymentWindowPolicy (deploy.agents.dev/v1alpha1, cluster-scoped): a platform team's deployment
 * windows over the AgentDeployments of the namespaces it selects. Its windows join each selected object's
 * own (one rule: any Deny open holds; if any Allow exists anywhere, a change goes out only inside one).
 * Only its own manualOverride lets the object's override annotation through its windows, so a namespace
 * user, who cannot edit a cluster-scoped object, cannot lift it.
 */
import { z } from 'zod';
import {
  API_VERSION_DESCRIPTION,
  conditions,
  durationField,
  KIND_DESCRIPTION,
  ObjectMeta,
  UNOBSERVED_STATUS,
} from './common.ts';
import { DeploymentWindow } from './deployment-windows.ts';

const LABEL_KEY = z.string().min(1).max(317);
const LABEL_VALUE = z.string().max(63);

/** metav1.LabelSelector. */
export const LabelSelector = z.object({
  matchLabels: z
    .record(LABEL_KEY, LABEL_VALUE)
    .optional()
    .describe('Labels that must all be present with these values.'),
  matchExpressions: z
    .array(
      z.object({
        key: LABEL_KEY.describe('The label key.'),
        operator: z
          .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
          .describe('How the key relates to values.'),
        values: z
          .array(LABEL_VALUE)
          .max(64)
          .optional()
          .describe('For In and NotIn: the values; empty for Exists and DoesNotExist.'),
      }),
    )
    .max(32)
    .optional()
    .describe('Requirements that must all hold.'),
});
export type LabelSelector = z.infer<typeof LabelSelector>;

/** The most held objects status.held names (status.heldObjects counts them all). */
export const MAX_HELD_LISTED = 50;

export const DeploymentWindowPolicySpec = z.object({
  namespaceSelector: LabelSelector.describe(
    "The namespaces whose AgentDeployments the policy applies to, by the namespaces' labels; an empty selector selects every namespace.",
  ),
  selector: LabelSelector.optional().describe(
    'When set, only the AgentDeployments of those namespaces whose labels it matches (both selectors must match).',
  ),
  windows: z
    .array(
      // The window of spec.deploymentWindows, its refusals naming this field.
      DeploymentWindow.extend({
        duration: durationField('spec.windows[].duration', '1m', '8784h').describe(
          DeploymentWindow.shape.duration.description ?? '',
        ),
      }),
    )
    .min(1)
    .max(16)
    .describe(
      'The windows, as spec.deploymentWindows: they join the windows of each object selected, under the one rule (any open Deny window holds; if any Allow window exists anywhere, a change goes out only inside one).',
    ),
  manualOverride: z
    .boolean()
    .default(false)
    .describe(
      "Whether an object's deploy.agents.dev/override-window annotation lets a change through this policy's windows. False: the override is refused and the change waits.",
    ),
  allowRollback: z
    .boolean()
    .default(true)
    .describe(
      'Whether a rollback (spec.remediation Rollback, or kubectl agd undo) goes through while these windows hold changes: it restores a revision that deployed. False holds it too.',
    ),
});
export type DeploymentWindowPolicySpec = z.infer<typeof DeploymentWindowPolicySpec>;

export const DeploymentWindowPolicyStatus = z.object({
  heldObjects: z
    .int()
    .min(0)
    .optional()
    .describe('How many AgentDeployments the policy holds a change of now.'),
  held: z
    .array(z.string().max(317))
    .max(MAX_HELD_LISTED)
    .optional()
    .describe(
      `The AgentDeployments the policy holds a change of now, as namespace/name (at most ${MAX_HELD_LISTED}).`,
    ),
  observedGeneration: z.int().min(0).optional().describe('metadata.generation this status describes.'),
  conditions: conditions().optional(),
});
export type DeploymentWindowPolicyStatus = z.infer<typeof DeploymentWindowPolicyStatus>;

export const DeploymentWindowPolicy = z.object({
  apiVersion: z.string().describe(API_VERSION_DESCRIPTION),
  kind: z.string().describe(KIND_DESCRIPTION),
  metadata: ObjectMeta,
  spec: DeploymentWindowPolicySpec.describe(
    'The namespaces and objects the policy selects, and its windows.',
  ),
  status: DeploymentWindowPolicyStatus.default(UNOBSERVED_STATUS)
    .optional()
    .describe('State observed by the controller.'),
});
export type DeploymentWindowPolicy = z.infer<typeof DeploymentWindowPolicy>;
