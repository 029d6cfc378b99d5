/**
 * One verification step per reconcile pass (DESIGN: level-based, non-blocking). The state machine
 * (machine.ts) says what to do; this module does it against the deployment's agent server and returns
 * the new status.verification, how it reads in conditions, and when to come back.
 */
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Verification, VerificationStatus } from '../api/verification.ts';
import type { Credentials } from '../controlplane/credentials.ts';
import { formatDuration } from '../lib/duration.ts';
import { cleanPeerText } from '../lib/peer-text.ts';
import { AgentServerClient, AgentServerError } from './agent-server-client.ts';
import { parseAgentServerUrl } from './agent-server-url.ts';
import {
  type UrlChosenBy,
  type VerificationCaller,
  type VerificationKeyRead,
  verificationCaller,
} from './caller.ts';
import { addressGuardedAgent } from './guarded-agent.ts';
import type { HostAllowList } from './host-allow-list.ts';
import { type InternalAddressPolicy, internalAddressPolicy } from './internal-addresses.ts';
import { JOIN_REQUEUE_MS, nextDueMs, nextStep } from './machine.ts';
import { runAttempt } from './run-attempt.ts';
import type { RunReport, RunReports } from './run-reports.ts';
import { type VerificationSettings, verificationSettings } from './settings.ts';
import { notedView, type UnverifiedReason, unverifiedView, type VerificationView, viewOf } from './view.ts';

export const CREATED_BY = 'agent-deployment-operator';
const TERMINAL = new Set(['success', 'error', 'timeout', 'interrupted']);
/** status.verification.last.message's limit. */
const MAX_MESSAGE = 1024;

export interface WebhookSettings {
  /** Base URL the agent server reaches the receiver at (--webhook-base-url). */
  baseUrl: string;
  /** The run's token (HMAC of the object's uid and the run's thread); never logged. */
  tokenFor(uid: string, threadId: string): Promise<string>;
  reports: RunReports;
}

export interface VerifierOptions {
  /** Connections for calls with the controller's credentials (to allowed hosts only). */
  dispatcher?: Dispatcher;
  /**
   * Internal addresses a namespace's own credentials may reach (--agent-server-allowed-internal-addresses);
   * default none. Those calls go through connections of their own that check every address they connect to.
   */
  internalAddresses?: InternalAddressPolicy;
  /** Agent-server hosts the controller's own credentials may be sent to (--agent-server-allowed-hosts). */
  allowedHosts: HostAllowList;
  /** First retry delay after a failed verification; doubles per failure. */
  backoffBaseMs: number;
  webhook?: WebhookSettings;
  now(): Date;
}

export interface VerifyRequest {
  key: string;
  namespace: string;
  name: string;
  uid: string;
  spec: Verification;
  revisionId: string;
  /** The deployment's URL as the platform answered it (its custom_url). */
  url: string | undefined;
  /** Who set that URL: the platform for a source it hosts (repo_host), else the namespace (customUrl). */
  urlChosenBy: UrlChosenBy;
  /** The object's control-plane credentials: sent only to a URL the platform assigned (caller.ts). */
  credentials: Credentials;
  /**
   * Whose credentials these are: the controller's go only to allowed hosts; a namespace's own
   * (spec.credentialsSecretRef) never to an internal address.
   */
  credentialsOwner: 'controller' | 'namespace';
  /** spec.verification.credentialsSecretRef as read; undefined when the spec names none. */
  verificationKey?: VerificationKeyRead | undefined;
  record: VerificationStatus | undefined;
  log: Logger;
  /** Cancels the agent-server calls (shutdown). */
  signal?: AbortSignal | undefined;
}

export interface VerifyResult {
  record: VerificationStatus;
  view: VerificationView;
  /** When the next pass should come; undefined: the poll interval. */
  requeueAfterMs: number | undefined;
}

type Attempt = NonNullable<VerificationStatus['last']>;
type Current = NonNullable<VerificationStatus['current']>;

export class Verifier {
  readonly #options: VerifierOptions;
  /** Made on first use: most controllers never verify with a namespace's credentials. */
  #namespaceDispatcher: Dispatcher | undefined;

  constructor(options: VerifierOptions) {
    this.#options = options;
  }

  /** Closes the connections of namespace-credential calls (shutdown). */
  async close(): Promise<void> {
    await this.#namespaceDispatcher?.close();
  }

  /** Forget what is held in memory for an object (deleted, or verification removed). */
  forget(key: string): void {
    this.#options.webhook?.reports.forget(key);
  }

  async step(req: VerifyRequest): Promise<VerifyResult> {
    const key = req.verificationKey;
    if (key && 'problem' in key) {
      return unverified(
        this.#kept(req),
        'waiting',
        key.reason,
        `not verified: ${key.problem}; no request was made`,
      );
    }
    const caller = verificationCaller(req);
    const result = await this.#stepAs(req, caller);
    return caller.kind === 'keyless' ? { ...result, view: notedView(result.view, caller.note) } : result;
  }

  async #stepAs(req: VerifyRequest, caller: VerificationCaller): Promise<VerifyResult> {
    const refused = this.#refusedUrl(req, caller);
    if (refused) return refused;
    const settings = verificationSettings(req.spec);
    const reports = this.#options.webhook?.reports;
    const current = req.record?.current;
    // After a restart the receiver knows nothing of the run in flight: register it again.
    if (current?.webhook && reports) reports.expect(req.key, current.threadId, current.runId);
    const decision = nextStep({
      record: req.record,
      revisionId: req.revisionId,
      specDigest: settings.digest,
      nowMs: this.#options.now().getTime(),
      timeoutMs: settings.timeoutMs,
      intervalMs: settings.intervalMs,
      backoffBaseMs: this.#options.backoffBaseMs,
      delivered: !!(current && reports?.reportFor(req.key, current.threadId, current.runId)),
    });
    const fresh = (): VerificationStatus => ({
      revisionId: req.revisionId,
      specDigest: settings.digest,
      failures: 0,
    });
    const record =
      decision.action === 'start' && decision.reset ? fresh() : structuredClone(req.record ?? fresh());

    switch (decision.action) {
      case 'start':
        return this.#start(req, settings, record);
      case 'complete-from-webhook': {
        const c = record.current as Current;
        const report = reports?.reportFor(req.key, c.threadId, c.runId) as RunReport;
        return this.#complete(req, settings, record, runAttempt(c, report.status, report.error, 'webhook'));
      }
      case 'time-out':
        return this.#timeOut(req, settings, record);
      case 'await-webhook':
        return this.#result(req, record, decision.afterMs);
      case 'join':
        return this.#join(req, settings, record, decision.waitMs);
      case 'idle':
        return this.#result(req, record, decision.afterMs);
    }
  }

  /**
   * A URL whose appended paths would not stay the path gets no request; nor does the controller's
   * credentials to a host outside the allow-list. The object says why; whatever was recorded stays as it
   * is.
   */
  #refusedUrl(req: VerifyRequest, caller: VerificationCaller): VerifyResult | undefined {
    if (!req.url) return undefined;
    const parsed = parseAgentServerUrl(req.url);
    const shown = cleanPeerText(req.url, 200);
    if ('problem' in parsed) {
      return this.#refused(
        req,
        `not verified: the deployment's URL ${shown} is refused: ${parsed.problem}; no request was made`,
      );
    }
    if (caller.kind !== 'controller' || this.#options.allowedHosts.allows(req.url)) return undefined;
    const entries = this.#options.allowedHosts.entries;
    return this.#refused(
      req,
      `not verified: the deployment's URL ${shown} is not on the agent-server host allow-list (${entries.length ? entries.join(', ') : 'empty'}), so the controller's credentials are not sent there and no request was made; the administrator can allow the host (--agent-server-allowed-hosts), or the object can use its namespace's own credentials (spec.credentialsSecretRef)`,
    );
  }

  /** Stalled URLNotAllowed, the record kept as it was. */
  #refused(req: VerifyRequest, message: string, record?: VerificationStatus): VerifyResult {
    return unverified(this.#kept(req, record), 'stalled', 'URLNotAllowed', message);
  }

  /** The record as it was, for a pass that makes no request. */
  #kept(req: VerifyRequest, record?: VerificationStatus): VerificationStatus {
    return structuredClone(
      record ??
        req.record ?? {
          revisionId: req.revisionId,
          specDigest: verificationSettings(req.spec).digest,
          failures: 0,
        },
    );
  }

  async #start(
    req: VerifyRequest,
    settings: VerificationSettings,
    record: VerificationStatus,
  ): Promise<VerifyResult> {
    record.current = undefined;
    if (!req.url) {
      const message =
        'the deployment has no URL to verify (status.url is empty; for external_image set spec.sourceConfig.customUrl)';
      return unverified(record, 'waiting', 'NoURLToVerify', message);
    }
    const startedAt = this.#options.now().toISOString();
    const webhook = this.#options.webhook && settings.webhook !== false ? this.#options.webhook : undefined;
    const client = this.#client(req);
    let threadId: string | undefined;
    try {
      await client.ok();
      const metadata = { created_by: CREATED_BY, agentdeployment: `${req.namespace}/${req.name}` };
      threadId = await client.createThread(metadata);
      if (webhook) webhook.reports.expect(req.key, threadId);
      const run = await client.createRun(threadId, {
        assistant_id: settings.assistantId,
        input: settings.input,
        metadata,
        ...(webhook ? { webhook: await this.#webhookUrl(webhook, req, threadId) } : {}),
      });
      record.current = { runId: run.run_id, threadId, startedAt, ...(webhook ? { webhook: true } : {}) };
      webhook?.reports.expect(req.key, threadId, run.run_id);
      req.log.info({ runId: run.run_id, threadId, webhook: !!webhook }, 'verification run started');
    } catch (err) {
      if (!(err instanceof AgentServerError)) throw err;
      if (err.refused) return this.#refused(req, `not verified: ${err.message}`, record);
      return this.#complete(req, settings, record, {
        ...(threadId ? { threadId } : {}),
        startedAt,
        completedAt: startedAt,
        outcome: 'Failed',
        message: err.message,
      });
    }
    const c = record.current;
    const early = webhook?.reports.reportFor(req.key, c.threadId, c.runId);
    if (early)
      return this.#complete(req, settings, record, runAttempt(c, early.status, early.error, 'webhook'));
    if (webhook) return this.#result(req, record, Math.ceil(settings.timeoutMs / 2));
    // Fast runs finish within the first join slice, in this very pass.
    const first = nextStep({
      record,
      revisionId: req.revisionId,
      specDigest: settings.digest,
      nowMs: this.#options.now().getTime(),
      timeoutMs: settings.timeoutMs,
      intervalMs: settings.intervalMs,
      backoffBaseMs: this.#options.backoffBaseMs,
      delivered: false,
    });
    return first.action === 'join'
      ? this.#join(req, settings, record, first.waitMs)
      : this.#result(req, record, JOIN_REQUEUE_MS);
  }

  async #join(
    req: VerifyRequest,
    settings: VerificationSettings,
    record: VerificationStatus,
    waitMs: number,
  ): Promise<VerifyResult> {
    const c = record.current as Current;
    const client = this.#client(req);
    try {
      const joined = await client.join(c.threadId, c.runId, waitMs);
      if (!joined.done) return this.#result(req, record, JOIN_REQUEUE_MS);
      const run = await client.getRun(c.threadId, c.runId);
      if (!TERMINAL.has(run.status)) return this.#result(req, record, JOIN_REQUEUE_MS);
      return this.#complete(req, settings, record, runAttempt(c, run.status, joined.error, 'join'));
    } catch (err) {
      if (!(err instanceof AgentServerError)) throw err;
      if (err.refused) return this.#refused(req, `not verified: ${err.message}`, record);
      return this.#complete(req, settings, record, {
        runId: c.runId,
        threadId: c.threadId,
        startedAt: c.startedAt,
        completedAt: this.#options.now().toISOString(),
        outcome: 'Failed',
        message: `run ${c.runId} on thread ${c.threadId}: ${err.message}`,
      });
    }
  }

  async #timeOut(
    req: VerifyRequest,
    settings: VerificationSettings,
    record: VerificationStatus,
  ): Promise<VerifyResult> {
    const c = record.current as Current;
    let runStatus: string | undefined;
    try {
      runStatus = cleanPeerText((await this.#client(req).getRun(c.threadId, c.runId)).status, 40);
    } catch (err) {
      if (!(err instanceof AgentServerError)) throw err;
    }
    return this.#complete(req, settings, record, {
      runId: c.runId,
      threadId: c.threadId,
      startedAt: c.startedAt,
      completedAt: this.#options.now().toISOString(),
      outcome: 'Failed',
      ...(runStatus ? { runStatus } : {}),
      message: `run ${c.runId} on thread ${c.threadId} did not complete within ${formatDuration(settings.timeoutMs)}${runStatus ? ` (status ${runStatus})` : ''}`,
    });
  }

  #complete(
    req: VerifyRequest,
    settings: VerificationSettings,
    record: VerificationStatus,
    attempt: Omit<Attempt, 'completedAt' | 'duration'> & { completedAt?: string },
  ): VerifyResult {
    const completedAt = attempt.completedAt ?? this.#options.now().toISOString();
    const durationMs = Date.parse(completedAt) - Date.parse(attempt.startedAt);
    const last: Attempt = { ...attempt, completedAt, duration: formatDuration(durationMs) };
    if (last.message && last.message.length > MAX_MESSAGE)
      last.message = `${last.message.slice(0, MAX_MESSAGE - 1)}…`;
    record.current = undefined;
    record.last = last;
    record.failures = last.outcome === 'Succeeded' ? 0 : (record.failures ?? 0) + 1;
    this.#options.webhook?.reports.forget(req.key);
    req.log.info(
      {
        runId: last.runId,
        threadId: last.threadId,
        outcome: last.outcome,
        runStatus: last.runStatus,
        durationMs,
        completedBy: last.completedBy,
      },
      'verification completed',
    );
    const due = nextDueMs(record, settings.intervalMs, this.#options.backoffBaseMs) as number;
    return this.#result(req, record, Math.max(0, due - this.#options.now().getTime()));
  }

  #result(req: VerifyRequest, record: VerificationStatus, afterMs: number): VerifyResult {
    const settings = verificationSettings(req.spec);
    const due = nextDueMs(record, settings.intervalMs, this.#options.backoffBaseMs);
    record.nextVerificationAt = record.current || due === undefined ? undefined : new Date(due).toISOString();
    return { record, view: viewOf(record, req.revisionId), requeueAfterMs: afterMs };
  }

  #client(req: VerifyRequest): AgentServerClient {
    const caller = verificationCaller(req);
    const controllers = caller.kind === 'controller';
    // Every call but the controller's goes where a namespace pointed it: never to an internal address.
    if (!controllers) {
      this.#namespaceDispatcher ??= addressGuardedAgent(
        this.#options.internalAddresses ?? internalAddressPolicy(),
        { connections: 8, keepAliveTimeout: 30_000, connectTimeout: 5_000 },
      );
    }
    const dispatcher = controllers ? this.#options.dispatcher : this.#namespaceDispatcher;
    return new AgentServerClient({
      url: req.url as string,
      credentials: caller.kind === 'keyless' ? undefined : caller.key,
      signal: req.signal,
      quoteAnswers: controllers,
      ...(dispatcher ? { dispatcher } : {}),
    });
  }

  async #webhookUrl(webhook: WebhookSettings, req: VerifyRequest, threadId: string): Promise<string> {
    const token = await webhook.tokenFor(req.uid, threadId);
    const base = webhook.baseUrl.replace(/\/+$/, '');
    return `${base}/webhooks/runs/${encodeURIComponent(req.namespace)}/${encodeURIComponent(req.name)}?token=${token}`;
  }
}

/** Verification that cannot start: Verified Unknown, and the pass ends the way `kind` says. */
function unverified(
  record: VerificationStatus,
  kind: 'stalled' | 'waiting',
  reason: UnverifiedReason,
  message: string,
): VerifyResult {
  return { record, view: unverifiedView(kind, reason, message), requeueAfterMs: undefined };
}
