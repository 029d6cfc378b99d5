/**
 * Per-run webhook tokens: HMAC-SHA256(operator key, object uid and the thread of the run), hex. A
 * verification runs on a thread of its own, created before the run (whose id the webhook URL cannot
 * know yet), so the thread names the run. The receiver accepts a token only while that run is awaited,
 * recomputes it and compares in constant time; a token of another length is refused without comparing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function deriveRunToken(masterKey: Buffer, uid: string, threadId: string): string {
  return createHmac('sha256', masterKey).update(`agent-deployment-webhook:${uid}:${threadId}`).digest('hex');
}

export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
