/** /healthz (the process serves), /readyz (caches synced) and /metrics (Prometheus text). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from './lib/prom-client.ts';

export interface HttpEndpoints {
  port: number;
  close(): Promise<void>;
}

export async function startHttpEndpoints(options: {
  port: number;
  logger: Logger;
  registry: Registry;
  ready: () => boolean;
  /** Lines /readyz adds after its verdict (e.g. namespaces that cannot be listed). */
  detail?: () => string | undefined;
}): Promise<HttpEndpoints> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (path === '/readyz') {
      const ready = options.ready();
      const detail = options.detail?.();
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' })
        .end(`${ready ? 'ok' : 'caches not synced'}${detail ? `\n${detail}` : ''}`);
    } else if (path === '/metrics') {
      options.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text))
        .catch(() => res.writeHead(500).end());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'health and metrics endpoints listening');
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
