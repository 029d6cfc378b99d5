/**
 * For tests: a local HTTP server that answers every request the way a hostile or broken peer would,
 * so the deadlines, caps and pauses of the outbound clients can be shown to hold.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HostileMode =
  /** 200 headers, then one byte every 50 ms, never ending. */
  | 'trickle'
  /** 200 with a 100 MB body, streamed without a content-length. */
  | 'huge'
  /** 429 with Retry-After: 86400. */
  | 'retry-after'
  /** Accepts the request and never answers. */
  | 'hang';

export interface HostileServer {
  url: string;
  /** Requests received so far. */
  requests(): number;
  close(): Promise<void>;
}

const HUGE_BYTES = 100 * 1024 * 1024;

const behaviours: Record<HostileMode, (res: ServerResponse) => void> = {
  trickle: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  huge: (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    streamSpaces(res, HUGE_BYTES);
  },
  'retry-after': (res) => {
    res.writeHead(429, { 'retry-after': '86400', 'content-type': 'application/json' });
    res.end('{"detail":"slow down"}');
  },
  hang: () => {},
};

/** Streams `bytes` spaces in 64 KiB chunks, with no content-length, minding back-pressure. */
export function streamSpaces(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const more = () => {
    while (sent < bytes) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => {
    sent = Number.POSITIVE_INFINITY;
  });
  more();
}

export function startHostileServer(mode: HostileMode): Promise<HostileServer> {
  return serve((res) => behaviours[mode](res));
}

/** Answers every request with the same status and JSON body (an answer valid in form, hostile in content). */
export function startFixedServer(status: number, body: unknown): Promise<HostileServer> {
  return serve((res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
}

async function serve(answer: (res: ServerResponse) => void): Promise<HostileServer> {
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
