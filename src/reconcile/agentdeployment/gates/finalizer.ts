/**
 * Gate `finalizer`: the finalizer goes on before anything is created, so nothing is created that
 * deletion could miss. An observe-only object deletes nothing, so it needs none.
 */
import { FINALIZER } from '../../../api/names.ts';
import { isObserveOnly } from '../management.ts';
import type { Gate } from '../verdict.ts';

export const finalizer: Gate = (facts) => {
  const { metadata, spec } = facts.object;
  if (metadata.finalizers?.includes(FINALIZER) || isObserveOnly(spec) || facts.prepared.has('addFinalizer'))
    return undefined;
  return { gate: 'finalizer', kind: 'prepare', prepare: 'addFinalizer' };
};
