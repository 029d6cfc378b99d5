/**
 * The run-completion webhook receiver: POST /webhooks/runs/{namespace}/{name}?token=... on a port of its
 * own. The token is checked in constant time against the awaited run's (HMAC of the object's uid and the
 * run's thread): valid only while that run is awaited. An unknown object, no run awaited, a wrong token
 * and a report of another run all get the same 404, so the answer reveals nothing about which objects
 * exist; a bad body is 400, and no answer echoes the request.
 * An accepted report is handed to `onReport`, which records it and enqueues the object. Logs name the
 * object and the outcome only: never the token, the URL or the body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RunReport } from '../verification/run-reports.ts';
import { tokenMatches } from './token.ts';

const MAX_BODY = 1 << 20;
const PATH = /^\/webhooks\/runs\/([^/]+)\/([^/]+)$/;

/** The Run the agent server POSTs (seeds/001 "Events"): only what the verification reads. */
const Delivery = z.looseObject({
  run_id: z.string().min(1).max(64),
  thread_id: z.string().min(1).max(64),
  status: z.string().min(1).max(64),
  error: z
    .looseObject({ error: z.string().optional(), message: z.string().optional() })
    .nullable()
    .optional(),
});

export interface WebhookReceiverOptions {
  port: number;
  host?: string;
  logger: Logger;
  /** The object's uid, when the operator watches such an object. */
  uidOf(namespace: string, name: string): string | undefined;
  /** The thread of the run the object awaits, if any. */
  awaitedThread(key: string): string | undefined;
  /** The token a report of that run must present. */
  tokenFor(uid: string, threadId: string): Promise<string>;
  /** Records a report; false when the object waits for no such run. */
  onReport(key: string, report: RunReport): boolean;
}

export interface WebhookReceiver {
  port: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const log = options.logger.child({ component: 'webhook-receiver' });
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err: err instanceof Error ? err.name : 'error' }, 'webhook receiver failed');
      reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://receiver');
    const match = PATH.exec(url.pathname);
    if (!match) return reply(res, 404, 'not found');
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed');
    const namespace = decodeURIComponent(match[1] as string);
    const name = decodeURIComponent(match[2] as string);
    const key = `${namespace}/${name}`;
    const uid = options.uidOf(namespace, name);
    const threadId = uid === undefined ? undefined : options.awaitedThread(key);
    // Computed in every case, so an unknown object takes as long to refuse as a wrong token.
    const expected = await options.tokenFor(uid ?? '', threadId ?? '');
    const matches = tokenMatches(expected, url.searchParams.get('token'));
    if (!uid || !threadId || !matches) {
      const outcome = !uid ? 'unknown-object' : !threadId ? 'no-run-awaited' : 'bad-token';
      log.info({ namespace, name, outcome }, 'webhook refused');
      return reply(res, 404, 'not found');
    }
    const body = await readBody(req);
    let parsed: z.infer<typeof Delivery> | undefined;
    try {
      const result = body === undefined ? undefined : Delivery.safeParse(JSON.parse(body));
      parsed = result?.success ? result.data : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed) {
      log.warn({ namespace, name, outcome: 'bad-body' }, 'webhook refused');
      return reply(res, body === undefined ? 413 : 400, 'invalid body');
    }
    const accepted = options.onReport(key, {
      threadId: parsed.thread_id,
      runId: parsed.run_id,
      status: parsed.status,
      ...(parsed.error ? { error: parsed.error } : {}),
    });
    if (!accepted) {
      log.info({ namespace, name, outcome: 'unexpected-run' }, 'webhook refused');
      return reply(res, 404, 'not found');
    }
    log.info({ namespace, name, outcome: 'accepted', runStatus: parsed.status }, 'webhook accepted');
    reply(res, 202, 'accepted');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ port }, 'webhook receiver listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: text }));
}

/** The body as text, or undefined when it exceeds MAX_BODY. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
