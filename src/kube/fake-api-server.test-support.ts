/**
 * For tests: a plain-HTTP stand-in for the API server on 127.0.0.1, answering each request with the
 * handler the test gives, recording every request it received, and a KubeAccess that talks to it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeAccess } from './access.ts';

export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** performance.now() when it arrived. */
  at: number;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => void;

export interface FakeApiServer {
  url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Responses still open (a watch held open, a list the test has not answered yet). */
  openResponses(): number;
  /** A KubeAccess for this server (no credentials, plain HTTP); closed by close(). */
  access(): KubeAccess;
  /** Ends every open response, closes the accesses made by access(), then the server. */
  close(): Promise<void>;
}

export async function startFakeApiServer(handler: FakeHandler): Promise<FakeApiServer> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const accesses: KubeAccess[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      at: performance.now(),
    };
    requests.push(recorded);
    open.add(res);
    res.on('close', () => open.delete(res));
    req.resume();
    try {
      handler(recorded, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
      res.end(`fake server handler failed: ${String(err)}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    openResponses: () => open.size,
    access() {
      const access = new KubeAccess({ source: 'fake', server: url, tls: { insecure: false }, auth: {} });
      accesses.push(access);
      return access;
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await Promise.all(accesses.splice(0).map((a) => a.close().catch(() => {})));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a JSON answer and ends the response. */
export function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A Kubernetes Status body, as the API server sends with a non-2xx answer or in an ERROR event. */
export function statusBody(code: number, message: string, reason = 'Unknown'): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
