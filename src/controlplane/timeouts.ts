/** A control-plane call's time limits (pure: the deletion decision reads them without the HTTP stack). */
export type Timeouts = { connectMs: number; headersMs: number; bodyMs: number; totalMs: number };

export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 5_000,
  headersMs: 10_000,
  bodyMs: 10_000,
  totalMs: 30_000,
};
