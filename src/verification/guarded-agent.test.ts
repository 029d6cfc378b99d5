/** The connections of namespace-credential calls check the address the connection resolved and used. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressRefusedError, addressGuardedAgent } from './guarded-agent.ts';
import { internalAddressPolicy } from './internal-addresses.ts';

let server: Server;
let port: number;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A resolver that answers every name with `address`, counting the questions. */
function resolverTo(address: string) {
  const asked: string[] = [];
  return {
    asked,
    resolve: (
      hostname: string,
      _options: unknown,
      callback: (err: null, addresses: { address: string; family: number }[]) => void,
    ) => {
      asked.push(hostname);
      callback(null, [{ address, family: 4 }]);
    },
  };
}

async function get(allowed: string, url: string, address = '127.0.0.1') {
  const dns = resolverTo(address);
  const agent = addressGuardedAgent(internalAddressPolicy(allowed), {
    connections: 1,
    keepAliveTimeout: 1_000,
    connectTimeout: 2_000,
    resolve: dns.resolve,
  });
  try {
    const res = await agent.request({ origin: url, path: '/x', method: 'GET' });
    await res.body.text();
    return { status: res.statusCode, asked: dns.asked };
  } catch (err) {
    return { error: err, asked: dns.asked };
  } finally {
    await agent.close();
  }
}

describe('addressGuardedAgent', () => {
  it('refuses a name whose answer is internal, at the connection that would use it: nothing sent', async () => {
    seen.length = 0;
    const r = await get('', `http://agents.example.test:${port}`);
    expect(r.error).toBeInstanceOf(AddressRefusedError);
    expect((r.error as Error).message).toContain(
      'agents.example.test, which resolves to 127.0.0.1) is loopback',
    );
    expect(r.asked).toEqual(['agents.example.test']);
    expect(seen).toEqual([]);
  });

  it('connects to the very address it resolved and checked (one resolution, no second look)', async () => {
    seen.length = 0;
    const r = await get('127.0.0.1', `http://agents.example.test:${port}`);
    expect(r.status).toBe(200);
    expect(r.asked).toEqual(['agents.example.test']);
    expect(seen).toEqual(['/x']);
  });

  it('refuses an IP literal before connecting', async () => {
    seen.length = 0;
    const r = await get('', `http://127.0.0.1:${port}`);
    expect(r.error).toBeInstanceOf(AddressRefusedError);
    expect(r.asked).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('a host the administrator named is reached wherever it resolves', async () => {
    seen.length = 0;
    const r = await get('localhost', `http://localhost:${port}`);
    // localhost may resolve to ::1 first, where nothing listens: reached or refused by the OS, never by us.
    expect(r.error).not.toBeInstanceOf(AddressRefusedError);
  });
});
