/**
 * spec.deploymentWindows and status.deploymentWindow: when an AgentDeployment's changes may reach the
 * platform (reconcile/agentdeployment/gates/window.ts decides; lib/schedule/ does the time). What the
 * CRD can tell is refused at admission (the kind, the cron's five fields, the duration and its bounds, the
 * time zone's characters); a cron or a zone that passes those and still means nothing is Stalled with
 * reason InvalidWindow, naming the field.
 */
import { z } from 'zod';
import { durationField } from './common.ts';

/** Five whitespace-separated fields; each field's own rules are the cron parser's (lib/schedule/cron.ts). */
const CRON_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;
/** An IANA zone name's characters (Europe/Berlin, America/Argentina/Buenos_Aires, Etc/GMT+5, UTC). */
const TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

export const DeploymentWindow = z.object({
  kind: z
    .enum(['Allow', 'Deny'])
    .describe(
      'Allow: changes go out only inside an Allow window (when any is listed); Deny: no change goes out while it is open. Deny beats Allow.',
    ),
  schedule: z
    .string()
    .max(128)
    .regex(CRON_FIELDS, 'must be a five-field cron: minute hour day-of-month month day-of-week')
    .describe(
      'When the window opens: a five-field cron (minute hour day-of-month month day-of-week; ranges, lists, steps, names such as MON or JAN), in timeZone.',
    ),
  duration: durationField('spec.deploymentWindows[].duration', '1m', '8784h').describe(
    'How long the window stays open each time it opens (elapsed time), 1m to 8784h (366 days).',
  ),
  timeZone: z
    .string()
    .regex(TIME_ZONE, 'must be an IANA time zone name such as Europe/Berlin or UTC')
    .optional()
    .describe('The IANA time zone the schedule is read in (its DST changes included). Defaults to UTC.'),
});
export type DeploymentWindow = z.infer<typeof DeploymentWindow>;

export const DeploymentWindows = z
  .array(DeploymentWindow)
  .max(16)
  .describe(
    'When changes may be sent to the platform, as Argo CD sync windows: a change (create, PATCH, redeploy, revert) goes out only when no Deny window is open and, if any Allow window is listed, inside one. A revision already in flight is followed to the end; an automatic rollback goes through (it restores a known-good revision). The annotation deploy.agents.dev/override-window (its value: the reason) lets one change through.',
  );

export const DeploymentWindowStatus = z
  .object({
    open: z.boolean().describe('Whether a change may be sent now.'),
    nextOpen: z.iso
      .datetime()
      .optional()
      .describe('When a change may next be sent (UTC), while closed; absent when not within a year.'),
    holding: z
      .string()
      .max(512)
      .optional()
      .describe(
        'The window that holds changes now, by its field (spec.deploymentWindows[i], or DeploymentWindowPolicy/<name> windows[i]) and what it says.',
      ),
    heldGeneration: z
      .int()
      .optional()
      .describe('The generation whose change is held (its WindowClosed event is sent once).'),
    overrideSpent: z
      .string()
      .max(256)
      .optional()
      .describe(
        'The value of the deploy.agents.dev/override-window annotation a change went through with: spent (the next override needs a new value).',
      ),
    overrideRefused: z
      .string()
      .max(256)
      .optional()
      .describe(
        'The value of the deploy.agents.dev/override-window annotation refused: a DeploymentWindowPolicy whose manualOverride is false holds the change (its Warning event is sent once per value).',
      ),
  })
  .describe(
    'What the deployment windows say now: spec.deploymentWindows and those of the DeploymentWindowPolicies selecting the object.',
  );
