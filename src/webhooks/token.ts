/**
 * Per-object webhook tokens: HMAC-SHA256(operator key, object uid), hex. The receiver recomputes the token
 * and compares in constant time; a token of another length is refused without comparing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function deriveToken(masterKey: Buffer, uid: string): string {
  return createHmac('sha256', masterKey).update(`agent-deployment-webhook:${uid}`).digest('hex');
}

export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
