/**
 * spec.verification with its defaults filled in, and a digest of it: a changed verification spec starts
 * the verification over.
 */

import { createHash } from 'node:crypto';
import type { Verification } from '../api/verification.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { parseDuration } from '../lib/duration.ts';

export const DEFAULT_INPUT = { messages: [{ role: 'user', content: 'ping' }] };
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_INTERVAL_MS = 10 * 60_000;

export interface VerificationSettings {
  assistantId: string;
  input: Record<string, unknown>;
  timeoutMs: number;
  intervalMs: number;
  /** undefined: use the receiver when the operator has one. */
  webhook: boolean | undefined;
  digest: string;
}

export function verificationSettings(spec: Verification): VerificationSettings {
  return {
    assistantId: spec.assistantId,
    input: spec.input ?? DEFAULT_INPUT,
    // Admission checks the format; a value it let through that parseDuration refuses takes the default.
    timeoutMs: (spec.timeout && parseDuration(spec.timeout)) || DEFAULT_TIMEOUT_MS,
    intervalMs: (spec.interval && parseDuration(spec.interval)) || DEFAULT_INTERVAL_MS,
    webhook: spec.webhook,
    digest: createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 16),
  };
}
