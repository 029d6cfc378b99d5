/**
 * The prometheus provider: an instant query, GET <address>/api/v1/query?query=..., the Prometheus HTTP
 * API (http-get.ts: allowed URLs only, bounded, no controller credentials). The query's {{deploymentId}}
 * and {{revisionId}} become PromQL string literals of the deployment and the revision under analysis
 * (quoted and escaped, so an id can never end the string and add to the query). The result is the
 * scalar's number, or the list of the vector's numbers (NaN and ±Inf as Prometheus writes them); a matrix
 * or a string answer is an Error, as is an answer that is not the API's shape.
 */
import { z } from 'zod';
import type { PrometheusProvider } from '../../api/analysis.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import type { ProviderResult } from '../outcome.ts';
import { getJson, type HttpContext } from './http-get.ts';

export interface QueryVariables {
  deploymentId: string;
  revisionId: string;
}

const SAMPLE = z.tuple([z.number(), z.string()]);
const ANSWER = z.union([
  z.object({
    status: z.literal('success'),
    data: z.discriminatedUnion('resultType', [
      z.object({ resultType: z.literal('scalar'), result: SAMPLE }),
      z.object({ resultType: z.literal('vector'), result: z.array(z.object({ value: SAMPLE })) }),
      z.object({ resultType: z.literal('matrix'), result: z.unknown() }),
      z.object({ resultType: z.literal('string'), result: z.unknown() }),
    ]),
  }),
  z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string().optional() }),
]);

/** A PromQL string literal holding `value` exactly. */
export function promqlString(value: string): string {
  const escaped = value.replace(
    /[\\"\n\r\t]/g,
    (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? c,
  );
  return `"${escaped}"`;
}

/** The query with its variables replaced by string literals. */
export function expandQuery(query: string, vars: QueryVariables): string {
  return query.replace(/\{\{\s*(deploymentId|revisionId)\s*\}\}/g, (_, name: keyof QueryVariables) =>
    promqlString(vars[name]),
  );
}

/** The instant-query URL below `address` (its path kept). */
export function queryUrl(address: string, query: string): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.search || url.hash) return undefined;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/query`;
  url.search = new URLSearchParams({ query }).toString();
  return url.toString();
}

const number = (text: string) => Number(text.replace(/^([+-]?)Inf$/, '$1Infinity'));

/** One measurement: the instant query's value. */
export async function measurePrometheus(
  prometheus: PrometheusProvider,
  field: string,
  vars: QueryVariables,
  ctx: HttpContext,
): Promise<ProviderResult> {
  const url = queryUrl(prometheus.address, expandQuery(prometheus.query, vars));
  if (!url) return { error: `${field}.address must be an absolute http(s) URL without a query or fragment` };
  const answer = await getJson(url, {}, ctx);
  if ('error' in answer) return answer;
  const parsed = ANSWER.safeParse(answer.json);
  if (!parsed.success) return { error: `${field}: the answer is not a Prometheus query result` };
  const body = parsed.data;
  if (body.status === 'error') {
    const why = cleanPeerText([body.errorType, body.error].filter(Boolean).join(': '), 200);
    return { error: `${field}: the query failed${why ? `: ${why}` : ''}` };
  }
  switch (body.data.resultType) {
    case 'scalar':
      return { value: number(body.data.result[1]) };
    case 'vector':
      return { value: body.data.result.map((s) => number(s.value[1])) };
    default:
      return {
        error: `${field}: the query answered a ${body.data.resultType}; write one that answers a scalar or an instant vector`,
      };
  }
}
