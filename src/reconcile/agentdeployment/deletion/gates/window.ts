/**
 * Gate `window` (issue 53): while the object's deployment windows are closed, the DELETE waits (the
 * finalizer stays) until they open; a DELETE sent already is followed to the end.
 */
import type { DeletionGate } from '../verdict.ts';

export const window: DeletionGate = (f) =>
  f.windowClosed && !f.sent
    ? { kind: 'wait', why: 'window', reason: 'WindowClosed', ...f.windowClosed }
    : undefined;
