/**
 * The one request the web and prometheus providers make: a GET for JSON, to an allowed URL only
 * (allowed-urls.ts), over connections that check every address they reach, within a total deadline and
 * a body cap (lib/outbound.ts). It carries the headers the metric names and `accept`, nothing of the
 * controller's: no credentials, no cookies. It follows no redirect (a redirect could leave the allowed
 * prefix): a 3xx is an error like any other non-2xx answer. An error quotes no body (the provider is
 * the namespace's choice, its words could carry what an internal service answered), only the status.
 */
import type { Dispatcher } from 'undici';
import { OutboundError, outboundCall } from '../../lib/outbound.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import { AddressRefusedError } from '../../verification/guarded-agent.ts';
import { ANALYSIS_ALLOWED_URLS_SETTING, type AnalysisUrlPolicy } from './allowed-urls.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 1024 * 1024;

export interface HttpContext {
  policy: AnalysisUrlPolicy;
  /** Connections that check the addresses they connect to (analysisDispatcher). */
  dispatcher: Dispatcher;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Aborts the request (shutdown, the end of a pass). */
  signal?: AbortSignal | undefined;
}

/** The JSON answer, or why there is none: a sentence fit for status (the URL shortened and cleaned). */
export async function getJson(
  url: string,
  headers: Record<string, string>,
  ctx: HttpContext,
): Promise<{ json: unknown } | { error: string }> {
  const shown = cleanPeerText(url, 120);
  const refused = ctx.policy.refusal(url);
  if (refused) return { error: `GET ${shown} refused: ${refused}` };
  const target = new URL(url);
  const timeoutMs = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let status: number;
  let text: string;
  try {
    const answer = await outboundCall(
      { deadlineMs: timeoutMs, maxBodyBytes: ctx.maxBodyBytes ?? MAX_ANSWER_BYTES, signal: ctx.signal },
      async (signal) => {
        const sent = await ctx.dispatcher.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'GET',
          headers: { ...headers, accept: 'application/json' },
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal,
        });
        return { status: sent.statusCode, headers: sent.headers, body: sent.body };
      },
    );
    status = answer.status;
    text = answer.text;
  } catch (err) {
    return { error: `GET ${shown} failed: ${failure(err)}` };
  }
  if (status < 200 || status >= 300) return { error: `GET ${shown} answered ${status}` };
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { error: `GET ${shown} answered ${status} with a body that is not JSON` };
  }
}

function failure(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof AddressRefusedError) {
      const via = e.host === e.address ? e.address : `${e.host}, which resolves to ${e.address}`;
      return `its address (${cleanPeerText(via, 120)}) is ${e.kind}, and ${ANALYSIS_ALLOWED_URLS_SETTING} does not name that host; no request was made`;
    }
  }
  if (err instanceof OutboundError) {
    return err.kind === 'transport' ? (err.code ?? 'the connection failed') : err.message;
  }
  return cleanPeerText(err instanceof Error ? err.message : String(err), 120);
}
