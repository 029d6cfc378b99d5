/**
 * What the act stage writes of the deployment windows (the gate `window` decides): status.deploymentWindow
 * from the facts' window, the WindowClosed event once per generation held, the override spent, with its
 * reason in the event and in the history of the revision it let through, or refused (a policy without
 * manualOverride), its Warning once per value.
 */
import { EventReason } from '../../../api/names.ts';
import type { AgentDeploymentFacts } from '../../../reconcile/agentdeployment/facts.ts';
import type { FinalVerdict } from '../../../reconcile/agentdeployment/verdict.ts';
import { describeWindow } from '../../../reconcile/agentdeployment/window-fact.ts';
import type { AgentDeploymentPass } from '../types.ts';

/** The verdicts that send a change to the platform (a closed window holds them, an override lets one by). */
export const WRITES: ReadonlySet<FinalVerdict['kind']> = new Set(['create', 'patch', 'revert', 'redeploy']);

/** status.deploymentWindow as the facts' window says now (kept as it was when the chain did not read it). */
export function windowStatus(pass: AgentDeploymentPass, facts: AgentDeploymentFacts): void {
  const { status } = pass;
  const policies = facts.policies?.readable ? facts.policies.selecting.length : 0;
  if (!pass.spec.deploymentWindows?.length && !policies) {
    // No policy selects it, as read: no windows at all (not read: kept as it was).
    if (facts.policies) delete status.deploymentWindow;
    return;
  }
  if (!facts.window?.ok) return;
  const { state } = facts.window;
  const was = status.deploymentWindow;
  status.deploymentWindow = {
    open: state.allowed,
    ...(state.nextOpen ? { nextOpen: new Date(state.nextOpen.at).toISOString() } : {}),
    ...(state.holding ? { holding: describeWindow(state.holding) } : {}),
    ...(!state.allowed && was?.heldGeneration !== undefined ? { heldGeneration: was.heldGeneration } : {}),
    ...(was?.overrideSpent !== undefined ? { overrideSpent: was.overrideSpent } : {}),
  };
  const refused = facts.window.overrideRefused;
  if (!refused) return;
  if (was?.overrideRefused !== refused.value)
    pass.events.push({
      type: 'Warning',
      reason: EventReason.WindowOverrideRefused,
      message: `${refused.why}; the change waits for the window (override-window: ${refused.value})`,
    });
  status.deploymentWindow.overrideRefused = refused.value;
}

/** A change held: said once per generation (an Event every pass would be noise). */
export function windowHeld(pass: AgentDeploymentPass, message: string): void {
  const window = pass.status.deploymentWindow;
  if (!window || window.heldGeneration === pass.generation) return;
  window.heldGeneration = pass.generation;
  pass.events.push({ type: 'Normal', reason: EventReason.WindowClosed, message });
}

/** A change went through a closed window by the override: spent, said, and recorded with its revision. */
export function spendOverride(pass: AgentDeploymentPass, facts: AgentDeploymentFacts): void {
  const override = facts.window?.ok ? facts.window.override : undefined;
  const window = pass.status.deploymentWindow;
  if (!override || !window) return;
  window.overrideSpent = override;
  const reason = override;
  const [newest] = pass.status.history ?? [];
  if (newest && newest.generation === pass.generation) newest.windowOverride = reason;
  pass.events.push({
    type: 'Warning',
    reason: EventReason.WindowOverridden,
    message: `a change went through the closed deployment window by the override-window annotation: ${reason}`,
  });
}
