/**
 * What an object's status says, read as `kubectl rollout status` reads a Deployment's: ready, failed
 * (needs a person: Stalled, or a deletion), suspended (the paused annotation), or still progressing, with
 * one line for a person. Every string from the cluster is cleaned before it is put in the line: a
 * condition's message quotes the control plane.
 */
import { Annotation, ConditionType } from '../api/names.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import type { VerbObject } from './objects.ts';

export type StateKind = 'ready' | 'failed' | 'suspended' | 'progressing';

export interface ObjectState {
  kind: StateKind;
  line: string;
}

/** A peer's text as a terminal line shows it. */
export const clean = (text: string | undefined, max = 300) => cleanPeerText(text ?? '', max);

const conditionOf = (obj: VerbObject, type: string) => obj.status?.conditions?.find((c) => c.type === type);

function said(condition: { reason?: string | undefined; message?: string | undefined }): string {
  const reason = clean(condition.reason, 64);
  const message = clean(condition.message);
  return [reason, message].filter(Boolean).join(': ');
}

function revisionOf(obj: VerbObject): string {
  const id = obj.status?.latestRevisionId;
  if (!id) return '';
  const status = obj.status?.revisionStatus;
  return ` (revision ${clean(id, 64)}${status ? ` ${clean(status, 64)}` : ''})`;
}

/** `what`: how the line names the object, e.g. `AgentDeployment "agent"`. */
export function stateOf(obj: VerbObject, what: string): ObjectState {
  const { metadata, status } = obj;
  if (metadata.deletionTimestamp) return { kind: 'failed', line: `${what} is being deleted` };
  if (metadata.annotations?.[Annotation.Paused] === 'true')
    return {
      kind: 'suspended',
      line: `${what} is suspended (annotation ${Annotation.Paused}): resume it with kubectl agd resume`,
    };
  const generation = metadata.generation;
  if (generation !== undefined && status?.observedGeneration !== generation)
    return {
      kind: 'progressing',
      line: `Waiting for ${what} to be observed: generation ${generation}, observed ${status?.observedGeneration ?? 'none'}`,
    };
  // Paused by the controller for a person's decision (an inconclusive analysis): it waits for them.
  const paused = conditionOf(obj, ConditionType.Paused);
  if (paused?.status === 'True')
    return {
      kind: 'suspended',
      line: `${what} is paused: ${said(paused)}${revisionOf(obj)}`,
    };
  const stalled = conditionOf(obj, ConditionType.Stalled);
  if (stalled?.status === 'True')
    return { kind: 'failed', line: `${what} failed: ${said(stalled)}${revisionOf(obj)}` };
  const ready = conditionOf(obj, ConditionType.Ready);
  if (ready?.status === 'True')
    return { kind: 'ready', line: `${what} is ready: ${said(ready)}${revisionOf(obj)}` };
  const reconciling = conditionOf(obj, ConditionType.Reconciling);
  const why = reconciling?.status === 'True' ? reconciling : ready;
  return {
    kind: 'progressing',
    line: `Waiting for ${what}: ${why ? said(why) : 'no condition yet'}${revisionOf(obj)}`,
  };
}
