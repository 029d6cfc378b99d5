/**
 * HTTP/2 to the API server with client-go's check for a connection that died silently (its HTTP/2
 * transport's ReadIdleTimeout 30 s and PingTimeout 15 s). Every request and watch shares one connection,
 * so a connection dropped by a NAT or a load balancer without a word would hold all of them. undici
 * sends a PING every `pingIntervalMs` but never gives up waiting for its answer; this connector watches
 * what the connection reads instead: a live API server answers every PING, so a connection that read
 * nothing for `readIdleMs` is dead, and it is destroyed. Every request on it then fails at once (a watch
 * starts again on a new connection) instead of at its own deadline, 5 to 10 minutes later for a watch.
 *
 * Only connections that speak HTTP/2 are watched: over HTTP/1.1 nothing pings, and a quiet watch reads
 * nothing for minutes on a healthy connection.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { buildConnector as BuildConnector } from 'undici';
import { buildConnector } from '../lib/undici.ts';

export interface ReadIdleTimings {
  /** How often undici PINGs the API server. */
  pingIntervalMs: number;
  /** A connection that read nothing for this long is dead (two PINGs unanswered, and a margin). */
  readIdleMs: number;
}

/** client-go's 30 s read-idle PING and 15 s PING timeout, with undici's PING every 15 s. */
export const API_SERVER_READ_IDLE: ReadIdleTimings = { pingIntervalMs: 15_000, readIdleMs: 45_000 };

/** undici's TLS connector, offering HTTP/2 first, whose HTTP/2 connections are destroyed once read-idle. */
export function readIdleConnector(
  tls: BuildConnector.BuildOptions,
  timings: ReadIdleTimings,
): BuildConnector.connector {
  const connect = buildConnector({ ...tls, allowH2: true, preferH2: true } as BuildConnector.BuildOptions);
  return (options, callback) =>
    connect(options, (err, socket) => {
      if (err || !socket) return callback(err as Error, null);
      if ((socket as TLSSocket).alpnProtocol === 'h2') watchReads(socket as Socket, timings.readIdleMs);
      return callback(null, socket);
    });
}

function watchReads(socket: Socket, readIdleMs: number): void {
  let read = socket.bytesRead;
  let readAt = performance.now();
  const check = setInterval(
    () => {
      if (socket.bytesRead !== read) {
        read = socket.bytesRead;
        readAt = performance.now();
      } else if (performance.now() - readAt >= readIdleMs) {
        clearInterval(check);
        socket.destroy(
          new Error(
            `the API server's connection read nothing for ${readIdleMs / 1000}s (its PINGs unanswered): dropped`,
          ),
        );
      }
    },
    Math.max(10, Math.floor(readIdleMs / 6)),
  );
  check.unref();
  socket.once('close', () => clearInterval(check));
}
