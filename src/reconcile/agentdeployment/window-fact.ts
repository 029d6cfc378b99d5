/**
 * The deployment windows' fact (derived once, when the gate `window` asks): what spec.deploymentWindows
 * say at the pass's time, and whether the override-window annotation lets this pass's change through.
 */
import { Annotation } from '../../api/names.ts';
import { formatDuration } from '../../lib/duration.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { WindowError } from '../../lib/schedule/window-error.ts';
import {
  type DeploymentWindow,
  parseWindows,
  type WindowSpec,
  type WindowState,
  windowState,
} from '../../lib/schedule/windows.ts';
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

/** The longest wait before the next look (the window's own opening is sooner, or the spec changes). */
const MAX_WAIT_MS = 3_600_000;

/** What a closed window says of a held `what` ("the change", "the deletion"), and when to look again. */
export function heldBy(
  state: WindowState,
  now: Date,
  what: string,
): { message: string; retryAfterMs: number } {
  const { holding, nextOpen } = state;
  const opens = nextOpen
    ? `it opens ${nextOpen.local} (${nextOpen.timeZone}), ${nextOpen.utc}`
    : 'it does not open within a year';
  return {
    message: `${what} waits: ${holding ? describeWindow(holding) : 'a deployment window'} holds changes; ${opens}`,
    retryAfterMs: nextOpen
      ? Math.min(MAX_WAIT_MS, Math.max(1_000, nextOpen.at - now.getTime()))
      : MAX_WAIT_MS,
  };
}

export const describeWindow = (w: DeploymentWindow): string =>
  `${w.field} (${w.kind} "${w.schedule.text.trim()}" for ${formatDuration(w.durationMs)}, ${w.timeZone})`;

/**
 * What a deletion reads of the windows: held while they are closed (a window nothing can read holds
 * nothing: the object's own spec stalls on it while it lives).
 */
export function closedWindowOf(
  windows: readonly WindowSpec[] | undefined,
  now: Date,
): { message: string; retryAfterMs: number } | undefined {
  if (!windows?.length) return undefined;
  try {
    const state = windowState(parseWindows(windows, WINDOWS_FIELD), now.getTime());
    return state.allowed ? undefined : heldBy(state, now, 'the deletion');
  } catch (err) {
    if (err instanceof WindowError) return undefined;
    throw err;
  }
}
