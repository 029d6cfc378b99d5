/** Shared by the agent-server tests: a simulator with a deployed deployment, and a webhook receiver. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentServerConfig, type Simulator, startSimulator } from '../index.ts';
import { API_KEY, createDeployment, repoHostCreate } from '../test-support.ts';

export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface AgentDeployment {
  id: string;
  url: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** POSTs and reads the whole server-sent-event stream. */
  stream(path: string, body: unknown): Promise<{ status: number; headers: Headers; events: SseEvent[] }>;
}

export interface SseEvent {
  event: string;
  data: unknown;
}

export async function startSim(): Promise<Simulator> {
  return startSimulator({ revisionStepMs: 1 });
}

let counter = 0;

/** Creates a deployment (configured first, by name), waits until it is deployed. */
export async function deploy(
  sim: Simulator,
  config: AgentServerConfig = {},
  secrets: Array<{ name: string; value: string }> = [],
): Promise<AgentDeployment> {
  const name = `agent-${process.pid}-${counter++}`;
  sim.configureAgentServer(name, config);
  const { id } = await createDeployment(sim, repoHostCreate(name, { secrets }));
  for (let tries = 0; !sim.deployments().find((d) => d.id === id)?.active_revision_id; tries++) {
    if (tries > 500) throw new Error(`deployment ${name} was never deployed`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const url = sim.deployments().find((d) => d.id === id)?.source_config?.custom_url ?? '';
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        'X-Api-Key': API_KEY,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // a server-sent-event stream stays text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  const stream = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'X-Api-Key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, events: parseSse(await response.text()) };
  };
  return { id, url, call, stream };
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

export interface ReceivedWebhook {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A loopback HTTP server that records what it receives and answers 200. */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let paths = 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    /** A URL of its own, so a test sees only the deliveries meant for it. */
    endpoint: () => {
      const path = `/hook-${paths++}`;
      return {
        url: `http://127.0.0.1:${port}${path}`,
        received: () => received.filter((r) => r.url.startsWith(path)),
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const human = (content: string) => ({ messages: [{ role: 'user', content }] });
