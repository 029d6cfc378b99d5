/**
 * Follows one object as it changes: a GET, then a watch of that object from the GET's resourceVersion,
 * each version handed to `see` until it answers. A watch the server ends (its timeout) or refuses (410:
 * too old) starts again from a fresh GET. The object's deletion, or `signal` (the verb's timeout),
 * ends the following with an error.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeAccess } from '../kube/access.ts';
import { NotFoundError } from '../kube/errors.ts';
import { watchStream } from '../kube/watch.ts';
import { collectionPath, describeRef, getObject, type ObjectRef, VerbObject } from './objects.ts';

/** The server ends each watch after this; the verb then reads the object again. */
const WATCH_SECONDS = 60;
/** After a watch that failed (not one the server ended), before the next GET: no hot loop. */
const RETRY_MS = 1000;

export class FollowError extends Error {}

export async function follow<T>(
  access: KubeAccess,
  ref: ObjectRef,
  see: (obj: VerbObject) => T | undefined,
  signal: AbortSignal,
): Promise<T> {
  const gone = () => new FollowError(`${describeRef(ref)} was deleted`);
  for (;;) {
    if (signal.aborted) throw new FollowError(`timed out following ${describeRef(ref)}`);
    let obj: VerbObject;
    try {
      obj = await getObject(access, ref);
    } catch (err) {
      if (err instanceof NotFoundError) throw gone();
      throw err;
    }
    const first = see(obj);
    if (first !== undefined) return first;
    let answer: { value: T } | { deleted: true } | undefined;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await watchStream(
        access,
        {
          path: collectionPath(ref.kind, ref.namespace),
          fieldSelector: `metadata.name=${ref.name}`,
          resourceVersion: obj.metadata.resourceVersion ?? '0',
          timeoutSeconds: WATCH_SECONDS,
          signal: stop.signal,
        },
        (event) => {
          if (answer || (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED'))
            return;
          if (event.type === 'DELETED') answer = { deleted: true };
          else {
            const parsed = VerbObject.safeParse(event.object);
            const value = parsed.success ? see(parsed.data) : undefined;
            if (value !== undefined) answer = { value };
          }
          if (answer) stop.abort();
        },
      );
    } catch {
      // A failed or refused watch: read the object again (the loop's GET says if it is gone).
      await delay(RETRY_MS, undefined, { signal }).catch(() => {});
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (answer && 'deleted' in answer) throw gone();
    if (answer) return answer.value;
  }
}
