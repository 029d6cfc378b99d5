/**
 * The web provider: a GET of `url` (http-get.ts: allowed URLs only, bounded, no controller credentials)
 * whose JSON answer's value at `jsonPath` (json-path.ts) is the result. Headers are the metric's own, a
 * value written in the spec or read from a Secret in the object's namespace; a header that would change
 * how the request is routed or framed (Host, Connection, Transfer-Encoding ...) is refused, so is a
 * value that is not printable ASCII. Problems name the field, never a header's value.
 */
import type { WebProvider } from '../../api/analysis.ts';
import { cleanPeerText } from '../../lib/peer-text.ts';
import type { ProviderResult } from '../outcome.ts';
import { getJson, type HttpContext } from './http-get.ts';
import { parseJsonPath, selectJsonPath } from './json-path.ts';

/** Reads a key of a Secret in the object's own namespace (decoded); undefined when either is missing. */
export type SecretReader = (name: string, key: string) => Promise<string | undefined>;

/** Headers the request's routing and framing depend on: never the namespace's to set. */
const RESERVED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);
const PRINTABLE = /^[\x20-\x7e]*$/;

/** The metric's headers, resolved, or why they cannot be (naming the field). */
export async function webHeaders(
  web: WebProvider,
  field: string,
  readSecret: SecretReader,
): Promise<{ headers: Record<string, string> } | { error: string }> {
  const headers: Record<string, string> = {};
  for (const [i, h] of (web.headers ?? []).entries()) {
    const at = `${field}.headers[${i}]`;
    const name = h.name.toLowerCase();
    if (RESERVED.has(name)) return { error: `${at}: the ${h.name} header cannot be set` };
    if (Object.hasOwn(headers, name)) return { error: `${at}: ${h.name} is set twice` };
    let value = h.value;
    const ref = h.valueFrom?.secretKeyRef;
    if (ref) {
      // A Secret made from a file ends in a line break: the value is what is around it.
      value = (await readSecret(ref.name, ref.key))?.trim();
      if (value === undefined) {
        return {
          error: `${at}.valueFrom: key ${cleanPeerText(ref.key, 64)} of Secret ${cleanPeerText(ref.name, 64)} not found`,
        };
      }
    }
    if (value === undefined || !PRINTABLE.test(value)) {
      return { error: `${at}: the value must be printable ASCII (no line breaks)` };
    }
    headers[name] = value;
  }
  return { headers };
}

/** One measurement: the value at jsonPath of the JSON the URL answers. */
export async function measureWeb(
  web: WebProvider,
  field: string,
  ctx: HttpContext & { readSecret: SecretReader },
): Promise<ProviderResult> {
  const path = parseJsonPath(web.jsonPath);
  if ('problem' in path) return { error: `${field}.jsonPath ${path.problem}` };
  const resolved = await webHeaders(web, field, ctx.readSecret);
  if ('error' in resolved) return resolved;
  const answer = await getJson(web.url, resolved.headers, ctx);
  if ('error' in answer) return answer;
  const value = selectJsonPath(answer.json, path);
  if (value === undefined) {
    return { error: `${field}.jsonPath ${cleanPeerText(web.jsonPath, 80)} selects nothing in the answer` };
  }
  return { value };
}
