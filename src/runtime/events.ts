import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EventReason, Reason } from '../api/names.ts';
import type { KubeAccess } from '../kube/access.ts';
import { isNotFound } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';
import { EventCorrelator } from './event-correlation.ts';

export interface EventObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  access: KubeAccess;
  /** Reporting component, e.g. agent-deployment-operator. */
  component: string;
  /** This replica, e.g. the pod name. */
  instance: string;
  logger: Logger;
  /** Injectable for tests; the event API calls made. */
  api?: EventApi;
}

type EventApi = Pick<CoreV1Api, 'createNamespacedEvent' | 'patchNamespacedEvent'>;

/** The two Event calls over kubeRequest, so they share its connection pool. */
function eventApi(access: KubeAccess): EventApi {
  const path = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  return {
    createNamespacedEvent: async ({ namespace, body }) =>
      (await kubeRequest(access, { method: 'POST', path: path(namespace), body })) as CoreV1Event,
    patchNamespacedEvent: async ({ namespace, name, body }) =>
      (await kubeRequest(access, {
        method: 'PATCH',
        path: `${path(namespace)}/${encodeURIComponent(name)}`,
        body,
        contentType: 'application/merge-patch+json',
      })) as CoreV1Event,
  };
}

const MAX_MESSAGE = 1024;
const AGGREGATION_WINDOW_MS = 10 * 60_000;
const MAX_REMEMBERED = 4096;
const WRITE_CONCURRENCY = 8;

interface Recorded {
  namespace: string;
  eventName: string;
  count: number;
  /** What the Event says now: a combined Event's message changes with each event it counts. */
  message: string;
  lastSeen: number;
}

const truncated = (message: string) =>
  message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;

/**
 * Writes core/v1 Events about objects as the Kubernetes event recorder does. A repeat of the same event
 * (object, type, reason, message) within 10 minutes bumps count and lastTimestamp on the existing Event
 * instead of creating another; similar events are combined and an object's flood of events is thinned
 * (event-correlation.ts). Writes of one event run in order, different events up to 8 at once; nothing
 * throws into the caller: failures are logged.
 */
export class EventRecorder {
  readonly #api: EventApi;
  readonly #component: string;
  readonly #instance: string;
  readonly #log: Logger;
  readonly #recent = new Map<string, Recorded>();
  readonly #correlator = new EventCorrelator();
  /** Writes of one aggregation key run in order (count bumps must not race); other keys in parallel. */
  readonly #chains = new Map<string, Promise<void>>();
  #inFlight = 0;
  readonly #slots: Array<() => void> = [];
  #sequence = 0;

  constructor(options: EventRecorderOptions) {
    this.#api = options.api ?? eventApi(options.access);
    this.#component = options.component;
    this.#instance = options.instance;
    this.#log = options.logger.child({ component: 'events' });
  }

  /** Resolves once this event is written (or its failure logged); never rejects. */
  record(ref: EventObjectRef, type: EventType, reason: EventReason | Reason, message: string): Promise<void> {
    const correlated = this.#correlator.correlate(ref, type, reason, truncated(message), Date.now());
    const { key } = correlated;
    if (correlated.dropped) {
      // As client-go: a dropped repeat still counts on its Event when the next one is written.
      const seen = this.#recent.get(key);
      if (seen) seen.count += 1;
      this.#log.debug(
        { object: `${ref.namespace}/${ref.name}`, reason },
        'event dropped: too many for this object',
      );
      return Promise.resolve();
    }
    const text = truncated(correlated.message);
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const done = previous
      .then(() => this.#withSlot(() => this.#write(ref, type, reason, text, key)))
      .catch((err: unknown) => {
        this.#log.warn(
          {
            object: `${ref.namespace}/${ref.name}`,
            reason,
            error: err instanceof Error ? err.message : String(err),
          },
          'could not record event',
        );
      });
    this.#chains.set(key, done);
    void done.then(() => {
      if (this.#chains.get(key) === done) this.#chains.delete(key);
    });
    return done;
  }

  /** At most WRITE_CONCURRENCY writes at once, so a burst of events neither piles up nor floods. */
  async #withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= WRITE_CONCURRENCY) await new Promise<void>((resolve) => this.#slots.push(resolve));
    this.#inFlight += 1;
    try {
      return await fn();
    } finally {
      this.#inFlight -= 1;
      this.#slots.shift()?.();
    }
  }

  async #write(
    ref: EventObjectRef,
    type: EventType,
    reason: string,
    message: string,
    key: string,
  ): Promise<void> {
    const now = Date.now();
    this.#forgetOlderThan(now - AGGREGATION_WINDOW_MS);
    const seen = this.#recent.get(key);
    if (seen) {
      try {
        await this.#api.patchNamespacedEvent({
          namespace: seen.namespace,
          name: seen.eventName,
          body: {
            count: seen.count + 1,
            lastTimestamp: new Date(now).toISOString(),
            ...(message === seen.message ? {} : { message }),
          },
        });
        seen.count += 1;
        seen.message = message;
        seen.lastSeen = now;
        this.#recent.delete(key);
        this.#recent.set(key, seen);
        return;
      } catch (err) {
        // The Event expired or was deleted: start a new one.
        if (!isNotFound(err)) throw err;
        this.#recent.delete(key);
      }
    }
    const timestamp = new Date(now);
    const event: CoreV1Event = {
      metadata: { name: this.#eventName(ref.name, now), namespace: ref.namespace },
      involvedObject: {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        uid: ref.uid,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      source: { component: this.#component, host: this.#instance },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
    };
    const created = await this.#api.createNamespacedEvent({ namespace: ref.namespace, body: event });
    this.#recent.set(key, {
      namespace: ref.namespace,
      eventName: created.metadata?.name ?? event.metadata.name ?? '',
      count: 1,
      message,
      lastSeen: now,
    });
    if (this.#recent.size > MAX_REMEMBERED) {
      const oldest = this.#recent.keys().next();
      if (!oldest.done) this.#recent.delete(oldest.value);
    }
  }

  /** client-go's `<object>.<unix nanos in hex>`; the sequence keeps two events in one ms apart. */
  #eventName(objectName: string, now: number): string {
    this.#sequence = (this.#sequence + 1) % 1_000_000;
    return `${objectName}.${(BigInt(now) * 1_000_000n + BigInt(this.#sequence)).toString(16)}`;
  }

  /** The map is kept in lastSeen order (entries are re-inserted on use), so expiry stops early. */
  #forgetOlderThan(cutoff: number): void {
    for (const [key, seen] of this.#recent) {
      if (seen.lastSeen >= cutoff) return;
      this.#recent.delete(key);
    }
  }
}

/** What an event names of its object. */
interface EventSubject {
  metadata: { namespace?: string | undefined; name: string; uid?: string | undefined };
}

/** Records the events of one kind's objects: each object's reference is filled in from its metadata. */
export function eventsOfKind(
  recorder: EventRecorder,
  apiVersion: string,
  kind: string,
): (
  obj: EventSubject,
  event: { type: EventType; reason: EventReason | Reason; message: string },
) => Promise<void> {
  return (obj, event) =>
    recorder.record(
      {
        apiVersion,
        kind,
        namespace: obj.metadata.namespace ?? '',
        name: obj.metadata.name,
        uid: obj.metadata.uid ?? '',
      },
      event.type,
      event.reason,
      event.message,
    );
}
