/**
 * Access to one API server: its address, the credentials of each request, and one connection pool that
 * every request shares (a TLS handshake per request would cost a round trip and native memory per
 * write). Credentials that change while the controller runs are picked up: a token file is read again
 * every minute (projected service-account tokens rotate), an exec plugin runs again before its
 * credential expires or once the API server refused it.
 *
 * The proxy is the kubeconfig's proxy-url, else the one HTTPS_PROXY/HTTP_PROXY name for the server
 * (NO_PROXY honoured), as client-go chooses. Connections speak HTTP/1.1 only, a connection per open
 * watch and per request in flight: undici's HTTP/2 costs the controller 4 to 17% more CPU per object
 * than its HTTP/1.1 while converging (its streams, nghttp2 and their async hooks per request; see
 * bench/results/2026-11-29-transport.md), and it never times out its PINGs, so a connection that died
 * silently would hold every watch on it until each one's deadline. Over HTTP/1.1 a dead connection
 * costs one watch, which its own deadline ends (watch.ts), and a request's deadline closes its socket.
 */
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { Agent, ProxyAgent } from '../lib/undici.ts';
import { type ExecCredentialResult, runExecCredential } from './exec-credential.ts';
import { loadKubeconfigFiles } from './kubeconfig.ts';
import { environmentProxy } from './proxy-env.ts';
import { defaultTarget, type KubeTarget, targetOf } from './target.ts';

/** client-go reads a token file again after a minute. */
const TOKEN_FILE_REREAD_MS = 60_000;
/** An exec credential is renewed this long before its expirationTimestamp. */
const EXEC_RENEW_EARLY_MS = 10_000;

const USER_AGENT = 'agent-deployment-operator';

export interface KubeConnection {
  /** Authentication, impersonation and user agent; the caller adds accept and content-type. */
  headers: Record<string, string | string[]>;
  dispatcher: Dispatcher;
}

interface TlsMaterial {
  cert?: Buffer | string | undefined;
  key?: Buffer | string | undefined;
}

export class KubeAccess {
  readonly server: string;
  readonly namespace: string | undefined;
  /** Where the settings came from, for messages. */
  readonly source: string;
  readonly #target: KubeTarget;
  readonly #now: () => number;
  readonly #env: NodeJS.ProcessEnv;
  readonly #proxyUrl: string | undefined;
  #pool: { dispatcher: Dispatcher; cert: TlsMaterial['cert'] } | undefined;
  #tokenFile: { token: string; readAt: number } | undefined;
  #exec: ExecCredentialResult | undefined;
  #execRunning: Promise<ExecCredentialResult> | undefined;
  #onAnswer: ((method: string, code: string) => void) | undefined;

  constructor(target: KubeTarget, options: { now?: () => number; env?: NodeJS.ProcessEnv } = {}) {
    this.#target = target;
    this.server = target.server;
    this.namespace = target.namespace;
    this.source = target.source;
    this.#now = options.now ?? Date.now;
    this.#env = options.env ?? process.env;
    this.#proxyUrl = target.proxyUrl ?? environmentProxy(this.#env, target.server);
  }

  /** The headers and the shared pool for a request made now. */
  async connection(): Promise<KubeConnection> {
    const { headers, tls } = await this.#credentials();
    if (!this.#pool || this.#pool.cert !== tls.cert) {
      const old = this.#pool;
      this.#pool = { dispatcher: this.#dispatcher(tls), cert: tls.cert };
      // A renewed client certificate: requests in flight finish on the old pool.
      if (old) void old.dispatcher.close().catch(() => {});
    }
    return { headers, dispatcher: this.#pool.dispatcher };
  }

  /** A connection of its own, for the few calls that must not queue behind the pool; close it after. */
  async ownConnection(): Promise<KubeConnection & { close(): void }> {
    const { headers, tls } = await this.#credentials();
    const dispatcher = this.#dispatcher(tls);
    return { headers, dispatcher, close: () => void dispatcher.destroy().catch(() => {}) };
  }

  /** Calls `hook` once per request with its method and status code ('<error>': no answer), for metrics. */
  countRequests(hook: (method: string, code: string) => void): void {
    this.#onAnswer = hook;
  }

  /** One request's answer (undefined: it had none), reported to the hook. */
  answered(method: string, status: number | undefined): void {
    this.#onAnswer?.(method, status === undefined ? '<error>' : String(status));
  }

  /** The API server answered 401: the next request fetches fresh credentials. */
  refused(): void {
    this.#tokenFile = undefined;
    this.#exec = undefined;
  }

  async close(): Promise<void> {
    await this.#pool?.dispatcher.close();
    this.#pool = undefined;
  }

  async #credentials(): Promise<{ headers: Record<string, string | string[]>; tls: TlsMaterial }> {
    const { auth, impersonate } = this.#target;
    const headers: Record<string, string | string[]> = { 'user-agent': USER_AGENT };
    let tls: TlsMaterial = { cert: this.#target.tls.cert, key: this.#target.tls.key };
    // A tokenFile wins over an inline token, which stands in while the file cannot be read.
    let token = auth.tokenFile ? await this.#readTokenFile(auth.tokenFile, auth.token) : auth.token;
    if (auth.exec) {
      const credential = await this.#execCredential();
      token = credential.token;
      if (credential.clientCertificate)
        tls = { cert: credential.clientCertificate, key: credential.clientKey };
    }
    if (token) headers.authorization = `Bearer ${token}`;
    else if (auth.basic) {
      const pair = `${auth.basic.username}:${auth.basic.password}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    if (impersonate) {
      if (impersonate.user) headers['impersonate-user'] = impersonate.user;
      if (impersonate.uid) headers['impersonate-uid'] = impersonate.uid;
      if (impersonate.groups.length > 0) headers['impersonate-group'] = impersonate.groups;
      for (const [key, values] of Object.entries(impersonate.extra)) {
        headers[`impersonate-extra-${encodeURIComponent(key)}`] = values;
      }
    }
    return { headers, tls };
  }

  async #readTokenFile(path: string, fallback: string | undefined): Promise<string> {
    const cached = this.#tokenFile;
    if (cached && this.#now() - cached.readAt < TOKEN_FILE_REREAD_MS) return cached.token;
    let problem: string;
    try {
      const token = (await readFile(path, 'utf8')).trim();
      if (token !== '') {
        this.#tokenFile = { token, readAt: this.#now() };
        return token;
      }
      // client-go: "read empty token from file"; a request without credentials would fail less clearly.
      problem = `the token file ${path} is empty`;
    } catch (err) {
      problem = `cannot read the token file ${path} (${(err as NodeJS.ErrnoException).code ?? err})`;
    }
    // A rotation caught halfway: the token read last is still good for a while.
    if (cached) return cached.token;
    if (fallback) return fallback;
    throw new Error(problem);
  }

  async #execCredential(): Promise<ExecCredentialResult> {
    const cached = this.#exec;
    if (cached && (cached.expiresAt === undefined || cached.expiresAt - EXEC_RENEW_EARLY_MS > this.#now())) {
      return cached;
    }
    const exec = this.#target.auth.exec;
    if (!exec) throw new Error('no exec plugin configured');
    // One plugin run at a time, however many requests wait for it.
    this.#execRunning ??= runExecCredential(exec, this.#env, this.#target.execCluster).finally(() => {
      this.#execRunning = undefined;
    });
    this.#exec = await this.#execRunning;
    return this.#exec;
  }

  #dispatcher(tls: TlsMaterial): Dispatcher {
    const { ca, insecure, serverName } = this.#target.tls;
    const connect = {
      ...(ca ? { ca } : {}),
      ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
      rejectUnauthorized: !insecure,
      ...(serverName ? { servername: serverName } : {}),
    };
    if (this.#proxyUrl) return new ProxyAgent({ uri: this.#proxyUrl, requestTls: connect, allowH2: false });
    return new Agent({ connect, allowH2: false });
  }
}

/** Access as kubectl finds it: KUBECONFIG, ~/.kube/config, or the pod's service account. */
export function defaultKubeAccess(env: NodeJS.ProcessEnv = process.env): KubeAccess {
  return new KubeAccess(defaultTarget(env), { env });
}

/** Access through one kubeconfig file's current context (tests, the benchmark, scripts). */
export function kubeAccessFromFile(path: string, context?: string): KubeAccess {
  return new KubeAccess(targetOf(loadKubeconfigFiles([path]), context));
}
