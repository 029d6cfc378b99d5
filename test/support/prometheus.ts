/**
 * For tests: a real Prometheus server (scripts/prometheus-binary.sh builds it) on a free loopback port,
 * scraping targets the test serves, and such a target: a tiny HTTP server answering its metrics in the
 * text exposition format. `startPrometheus` returns once the first scrape of every target has landed,
 * so an instant query at once sees the served values.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { freePorts } from '../../src/localcluster/ports.ts';

/** The text exposition format's content type: Prometheus 3 refuses a scrape without a known one. */
const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const KEPT_LOG_LINES = 200;

export interface MetricsTarget {
  /** host:port, as a scrape config's `targets` names it. */
  address: string;
  /** Replaces what the next scrapes read (exposition-format text; see `exposition`). */
  serve(text: string): void;
  /** Scrapes answered so far. */
  scrapes(): number;
  close(): Promise<void>;
}

/** Serves `text` at `/metrics` on a free loopback port. */
export async function startMetricsTarget(text: string): Promise<MetricsTarget> {
  let body = text;
  let scrapes = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    scrapes += 1;
    res.writeHead(200, { 'content-type': TEXT_FORMAT }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    serve: (next) => {
      body = next;
    },
    scrapes: () => scrapes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** One counter in the text exposition format: its TYPE line and a line per sample. */
export function exposition(name: string, samples: Sample[], type = 'counter'): string {
  const escapeLabel = (value: string) =>
    value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  const lines = samples.map(({ labels, value }) => {
    const pairs = Object.entries(labels).map(([key, v]) => `${key}="${escapeLabel(v)}"`);
    return `${name}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${value}`;
  });
  return `# TYPE ${name} ${type}\n${lines.join('\n')}\n`;
}

export interface PrometheusOptions {
  /** host:port of each target, scraped at /metrics under the job `job`. */
  targets: string[];
  job?: string;
  /** A Prometheus duration; short, so the first scrape lands soon. */
  scrapeInterval?: string;
}

export interface PrometheusServer {
  /** The HTTP API's base URL, e.g. http://127.0.0.1:PORT (queries at /api/v1/query). */
  url: string;
  job: string;
  /** The server's last log lines. */
  logs(): string[];
  /** SIGTERM, then SIGKILL after a grace period; removes its data directory. */
  stop(): Promise<void>;
}

/** Starts Prometheus (`binary`) and returns once each target's first scrape has landed. */
export async function startPrometheus(binary: string, options: PrometheusOptions): Promise<PrometheusServer> {
  const job = options.job ?? 'test';
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const interval = options.scrapeInterval ?? '1s';
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    scrape_configs: [{ job_name: job, static_configs: [{ targets: options.targets }] }],
  };
  // JSON is YAML: no YAML writer needed.
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config));
  const logs: string[] = [];
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) logs.push(line);
    logs.splice(0, Math.max(0, logs.length - KEPT_LOG_LINES));
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const server: PrometheusServer = {
    url,
    job,
    logs: () => [...logs],
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await untilScraped(server, child, options.targets.length);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** Polls `up{job=...}` until every target has a sample of 1: its first scrape is in the database. */
async function untilScraped(server: PrometheusServer, child: ChildProcess, targets: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `prometheus exited (${child.exitCode ?? child.signalCode}): ${server.logs().slice(-5).join(' | ')}`,
      );
    }
    try {
      const up = await instantVector(server.url, `up{job="${server.job}"} == 1`);
      if (up.length === targets) return;
      last = `${up.length} of ${targets} targets up`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(200);
  }
  throw new Error(
    `prometheus did not scrape its targets in time (${last}): ${server.logs().slice(-5).join(' | ')}`,
  );
}

/** An instant query's vector through /api/v1/query. */
async function instantVector(url: string, query: string): Promise<unknown[]> {
  const answer = await request(`${url}/api/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query }).toString(),
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  const body = (await answer.body.json()) as { status?: string; data?: { result?: unknown[] } };
  if (answer.statusCode !== 200 || body.status !== 'success')
    throw new Error(`query answered ${answer.statusCode}`);
  return body.data?.result ?? [];
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(STOP_GRACE_MS)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
}
