/**
 * The deployment windows' fact (derived once, when the gate `window` asks): what spec.deploymentWindows
 * and the DeploymentWindowPolicies selecting the object say at the pass's time, joined under the one
 * rule; whether the override-window annotation lets this pass's change through (the object's own windows
 * and those of policies with manualOverride, never the others); and whether a rollback is held (the
 * windows of the sources that forbid it: spec.remediation.allowRollback, a policy's allowRollback).
 */
import { Annotation, Reason } from '../../api/names.ts';
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
import { type PolicyWindows, policyRef } from './policy-windows.ts';
import type { Verdict } from './verdict.ts';

export type WindowFact =
  | {
      ok: true;
      state: WindowState;
      /** Closed, and the override annotation's value (cleaned) is not spent: a change goes through with it. */
      override: string | undefined;
      /** Closed, an override asked for and refused: its value, and why (the policy without manualOverride). */
      overrideRefused?: { value: string; why: string } | undefined;
      /** A rollback is held too: the state of the windows whose source forbids it (closed). */
      rollbackHeld?: WindowState | undefined;
      /** Closed: the policies whose windows alone hold a change, and whether the object's own do. */
      holders?: { policies: string[]; own: boolean } | undefined;
    }
  | { ok: false; message: string };

export const WINDOWS_FIELD = 'spec.deploymentWindows';

/** One source of windows: the object's own, or a policy's. */
interface Source {
  policy: string | undefined;
  windows: DeploymentWindow[];
  manualOverride: boolean;
  allowRollback: boolean;
}

function sourcesOf(facts: AgentDeploymentFacts): Source[] {
  const { spec } = facts.object;
  const policies: readonly PolicyWindows[] = facts.policies?.readable ? facts.policies.selecting : [];
  return sourcesFrom(spec.deploymentWindows, spec.remediation?.allowRollback ?? true, policies);
}

function sourcesFrom(
  own: readonly WindowSpec[] | undefined,
  allowRollback: boolean,
  policies: readonly PolicyWindows[],
): Source[] {
  return [
    {
      policy: undefined,
      windows: parseWindows(own ?? [], WINDOWS_FIELD),
      manualOverride: true,
      allowRollback,
    },
    ...policies.map((p) => ({
      policy: p.name,
      windows: parseWindows(p.windows, `${policyRef(p.name)} windows`),
      manualOverride: p.manualOverride,
      allowRollback: p.allowRollback,
    })),
  ];
}

const stateOf = (sources: readonly Source[], now: number) =>
  windowState(
    sources.flatMap((s) => s.windows),
    now,
  );

export function windowOf(facts: AgentDeploymentFacts): WindowFact {
  const { metadata, status } = facts.object;
  let sources: Source[];
  try {
    sources = sourcesOf(facts);
  } catch (err) {
    if (err instanceof WindowError) return { ok: false, message: err.message };
    throw err;
  }
  const now = facts.now.getTime();
  const state = stateOf(sources, now);
  if (state.allowed) return { ok: true, state, override: undefined };
  const strict = stateOf(
    sources.filter((s) => !s.allowRollback),
    now,
  );
  const rollbackHeld = strict.allowed ? undefined : strict;
  const holders = holdersAmong(sources, now);
  // Cleaned as status and events keep it (a namespace user wrote it), and compared so.
  const raw = metadata.annotations?.[Annotation.OverrideWindow];
  const asked = raw ? cleanPeerText(raw, 256) : undefined;
  if (!asked || asked === status.deploymentWindow?.overrideSpent)
    return { ok: true, state, override: undefined, rollbackHeld, holders };
  // The override lifts the windows it may: those of the sources without it must allow the change alone.
  const locked = sources.filter((s) => !s.manualOverride);
  const lockedState = stateOf(locked, now);
  if (lockedState.allowed) return { ok: true, state, override: asked, rollbackHeld, holders };
  const holder = locked.find((s) => lockedState.holding && s.windows.includes(lockedState.holding));
  return {
    ok: true,
    state,
    override: undefined,
    overrideRefused: {
      value: asked,
      why: `the override-window annotation is refused: ${policyRef(holder?.policy ?? '')} has manualOverride false`,
    },
    rollbackHeld,
    holders,
  };
}

/** The sources whose windows, each alone, hold a change at `now`: the policies named, and the object's own. */
function holdersAmong(sources: readonly Source[], now: number): { policies: string[]; own: boolean } {
  const closed = sources.filter((s) => s.windows.length && !windowState(s.windows, now).allowed);
  return {
    policies: closed.flatMap((s) => (s.policy === undefined ? [] : [s.policy])),
    own: closed.some((s) => s.policy === undefined),
  };
}

/** What holds a deleted object's DELETE, as holders (a window nothing can read holds nothing). */
export function deletionHolders(
  own: readonly WindowSpec[] | undefined,
  policies: readonly PolicyWindows[],
  now: Date,
): { policies: string[]; own: boolean } {
  try {
    return holdersAmong(sourcesFrom(own, true, policies), now.getTime());
  } catch (err) {
    if (err instanceof WindowError) return { policies: [], own: false };
    throw err;
  }
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

/** How often a deletion looks again while the policies are not known. */
const UNKNOWN_POLICIES_RETRY_MS = 5_000;

/**
 * What a deletion reads of the windows, its own and its policies': held while they are closed (a window
 * nothing can read holds nothing: the object's own spec, or the policy's status, says so), and while the
 * policies are not known (`unknown`: the controller has not listed them).
 */
export function closedWindowOf(
  windows: readonly WindowSpec[] | undefined,
  policies: readonly PolicyWindows[] | { unknown: string },
  now: Date,
): { message: string; retryAfterMs: number } | undefined {
  if ('unknown' in policies) {
    return (
      closedWindowOf(windows, [], now) ?? {
        message: `the deletion waits: ${policies.unknown}`,
        retryAfterMs: UNKNOWN_POLICIES_RETRY_MS,
      }
    );
  }
  if (!windows?.length && !policies.length) return undefined;
  try {
    const all = [
      ...parseWindows(windows ?? [], WINDOWS_FIELD),
      ...policies.flatMap((p) => parseWindows(p.windows, `${policyRef(p.name)} windows`)),
    ];
    const state = windowState(all, now.getTime());
    return state.allowed ? undefined : heldBy(state, now, 'the deletion');
  } catch (err) {
    if (err instanceof WindowError) return undefined;
    throw err;
  }
}

/**
 * A rollback (`gate`: the automatic one or the undo by hand) held by a closed window whose source forbids
 * it (allowRollback false), reading what it needs first; undefined when it goes through.
 */
export function rollbackHold(facts: AgentDeploymentFacts, gate: 'undo' | 'rollback'): Verdict | undefined {
  if (!facts.policies) return { gate, kind: 'read', read: 'policies' };
  if (!facts.window) return { gate, kind: 'read', read: 'window' };
  const held = facts.window.ok ? facts.window.rollbackHeld : undefined;
  if (!held) return undefined;
  return {
    gate,
    kind: 'wait',
    reason: Reason.WindowClosed,
    ...heldBy(held, facts.now, 'the rollback'),
    windowClosed: true,
  };
}
