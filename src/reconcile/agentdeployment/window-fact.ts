/**
 * The deployment windows' fact (derived once, when the gate `window` asks): what spec.deploymentWindows
 * say at the pass's time, and whether the override-window annotation lets this pass's change through.
 */
import { Annotation } from '../../api/names.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { WindowError } from '../../lib/schedule/window-error.ts';
import { parseWindows, type WindowState, windowState } from '../../lib/schedule/windows.ts';
import type { AgentDeploymentFacts } from './facts.ts';

export type WindowFact =
  | {
      ok: true;
      state: WindowState;
      /** Closed, and the override annotation's value (cleaned) is not spent: a change goes through with it. */
      override: string | undefined;
    }
  | { ok: false; message: string };

export const WINDOWS_FIELD = 'spec.deploymentWindows';

export function windowOf(facts: AgentDeploymentFacts): WindowFact {
  const { spec, metadata, status } = facts.object;
  let state: WindowState;
  try {
    state = windowState(parseWindows(spec.deploymentWindows ?? [], WINDOWS_FIELD), facts.now.getTime());
  } catch (err) {
    if (err instanceof WindowError) return { ok: false, message: err.message };
    throw err;
  }
  // Cleaned as status and events keep it (a namespace user wrote it), and compared so.
  const raw = metadata.annotations?.[Annotation.OverrideWindow];
  const asked = raw ? cleanPeerText(raw, 256) : undefined;
  const override =
    !state.allowed && asked && asked !== status.deploymentWindow?.overrideSpent ? asked : undefined;
  return { ok: true, state, override };
}
