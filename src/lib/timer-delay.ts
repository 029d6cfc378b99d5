/** setTimeout's limit: a longer delay overflows and fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay a timer can take: not negative, not NaN, below the timer limit. */
export function timerDelay(ms: number): number {
  if (!Number.isFinite(ms)) return ms > 0 ? MAX_TIMER_MS : 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.round(ms)));
}
