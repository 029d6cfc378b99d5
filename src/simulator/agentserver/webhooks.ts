/**
 * Webhook delivery at run completion: POST the Run, with `kwargs`, the final status, timings and the
 * thread's values, to the run's webhook URL with the configured static headers. A delivery is
 * attempted once; its outcome is recorded, never its headers (they may carry secrets).
 */
import type { RunOutcome } from './runs.ts';

export interface WebhookDelivery {
  run_id: string;
  url: string;
  /** `disabled`: http.disable_webhooks; `failed`: no answer, a refused URL or a server that did not start. */
  outcome: 'delivered' | 'failed' | 'disabled';
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  reason?: string;
}

export function webhookPayload(outcome: RunOutcome) {
  return {
    ...outcome.run,
    run_started_at: outcome.startedAt,
    run_ended_at: outcome.endedAt,
    webhook_sent_at: new Date().toISOString(),
    values: outcome.values,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

export async function postWebhook(
  target: string,
  payload: unknown,
  headers: Record<string, string>,
  fetchImpl: typeof fetch,
): Promise<{ status: number }> {
  const response = await fetchImpl(target, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(30_000),
  });
  await response.body?.cancel();
  return { status: response.status };
}
