/**
 * The connections verification opens with a namespace's own credentials: an undici Agent whose connector
 * checks the address it actually connects to (internal-addresses.ts). A host name is resolved inside the
 * connection's own lookup and every address it resolves to is checked there, so DNS cannot answer one
 * address to a check and another to the connect; an IP literal is checked before the connect; and the
 * connected socket's peer address is checked again before a byte of the request is written.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { Agent, buildConnector } from '../lib/undici.ts';
import { ALLOWED_INTERNAL_SETTING, type InternalAddressPolicy } from './internal-addresses.ts';

/** A connection refused by the address rules: nothing was sent. */
export class AddressRefusedError extends Error {
  /** The host the request named, the address it reached, and why that address is refused (e.g. loopback). */
  readonly host: string;
  readonly address: string;
  readonly kind: string;
  constructor(host: string, address: string, kind: string) {
    const via = host === address ? address : `${host}, which resolves to ${address}`;
    super(
      `the agent server's address (${via}) is ${kind}: verification with the namespace's own credentials does not call internal addresses unless the administrator allows them (${ALLOWED_INTERNAL_SETTING}); no request was made`,
    );
    this.name = 'AddressRefusedError';
    this.host = host;
    this.address = address;
    this.kind = kind;
  }
}

type Resolve = (
  hostname: string,
  options: { all: true; family?: number; hints?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface GuardedAgentOptions {
  connections: number;
  keepAliveTimeout: number;
  connectTimeout: number;
  /** Host name resolution (default: the system resolver, as Node's own connect uses). */
  resolve?: Resolve;
}

function guardedLookup(policy: InternalAddressPolicy, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(
      hostname,
      {
        all: true,
        ...(options.family ? { family: Number(options.family) } : {}),
        ...(options.hints ? { hints: options.hints } : {}),
      },
      (err, addresses) => {
        if (err) return callback(err, '');
        for (const a of addresses) {
          const kind = policy.refusalOf(a.address);
          if (kind) return callback(new AddressRefusedError(hostname, a.address, kind), '');
        }
        const first = addresses[0];
        if (options.all) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
        else
          callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '');
      },
    );
  };
}

/** An Agent for agent-server calls made with a namespace's own credentials. */
export function addressGuardedAgent(policy: InternalAddressPolicy, options: GuardedAgentOptions): Dispatcher {
  const timeout = options.connectTimeout;
  const plain = buildConnector({ timeout });
  const guarded = buildConnector({
    timeout,
    lookup: guardedLookup(policy, options.resolve ?? (dnsLookup as unknown as Resolve)),
  });
  return new Agent({
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeout,
    connect(opts, callback) {
      const host = opts.hostname;
      // A host the administrator named is reached wherever it resolves.
      if (policy.allowsHost(host)) return plain(opts, callback);
      if (isIP(host) !== 0) {
        const kind = policy.refusalOf(host);
        if (kind) return callback(new AddressRefusedError(host, host, kind), null);
      }
      guarded(opts, (err, socket) => {
        if (err) return callback(err, null);
        const peer = (socket as Socket).remoteAddress;
        const kind = peer === undefined ? 'unknown' : policy.refusalOf(peer);
        if (!kind) return callback(null, socket as Socket);
        (socket as Socket).destroy();
        callback(new AddressRefusedError(host, peer ?? 'unknown', kind), null);
      });
    },
  });
}
