/**
 * The history of the member Leases of a shard group (under --sharding=auto), as a watch delivers it,
 * and the audit of the simulator's writes against it: who held which key when, told by User-Agent.
 */
import type { KubeAccess } from '../../src/kube/access.ts';
import { kubeRequest } from '../../src/kube/request.ts';
import { watchStream } from '../../src/kube/watch.ts';
import type { Lease } from '../../src/runtime/lease-api.ts';
import { ACKNOWLEDGED_MEMBERS_ANNOTATION, SHARD_GROUP_LABEL } from '../../src/runtime/member-leases.ts';
import { assigneeOf } from '../../src/runtime/shard-assignment.ts';
import type { RequestRecord } from '../../src/simulator/index.ts';

interface LeaseState {
  at: number;
  /** null: the Lease was deleted. */
  acknowledged: string[] | null;
  /** Wall-clock ms past which the Lease is expired, unless renewed. */
  expiresAt: number;
}

export interface Write {
  at: number;
  replica: string;
  key: string;
  what: string;
}

export class LeaseHistory {
  readonly #states = new Map<string, LeaseState[]>();
  readonly #stop = new AbortController();
  #watching: Promise<void> | undefined;

  /** Watches the group's member Leases from now (after listing them). */
  async start(access: KubeAccess, namespace: string, group: string): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
    const labelSelector = `${SHARD_GROUP_LABEL}=${group}`;
    const list = (await kubeRequest(access, { method: 'GET', path, query: { labelSelector } })) as {
      metadata: { resourceVersion: string };
      items: Lease[];
    };
    for (const lease of list.items) this.#record('ADDED', lease);
    this.#watching = watchStream(
      access,
      {
        path,
        labelSelector,
        resourceVersion: list.metadata.resourceVersion,
        timeoutSeconds: 600,
        signal: this.#stop.signal,
      },
      (event) => this.#record(event.type, event.object as Lease),
    ).catch(() => {});
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#watching;
  }

  #record(type: string, lease: Lease): void {
    const holder = lease.spec?.holderIdentity ?? '';
    if (!holder || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) return;
    const states = this.#states.get(holder) ?? [];
    const renewed = Date.parse(lease.spec?.renewTime ?? '') || Date.now();
    states.push({
      at: Date.now(),
      acknowledged:
        type === 'DELETED'
          ? null
          : (lease.metadata?.annotations?.[ACKNOWLEDGED_MEMBERS_ANNOTATION] ?? '').split(',').filter(Boolean),
      expiresAt: renewed + (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
    });
    this.#states.set(holder, states);
  }

  /** Whether `replica`'s Lease gave it `key` at `t` (live, and its acknowledged list gives the key to it). */
  held(replica: string, key: string, t: number): boolean {
    const state = this.#stateAt(replica, t);
    return !!state?.acknowledged && t <= state.expiresAt && assigneeOf(key, state.acknowledged) === replica;
  }

  /** Whether `replica` let go of `key` at some moment in (from, to]: gave it away, or its Lease ended. */
  letGo(replica: string, key: string, from: number, to: number): boolean {
    const states = this.#states.get(replica) ?? [];
    const inForce = this.#stateAt(replica, from);
    const during = states.filter((s) => s.at > from && s.at <= to);
    for (const s of [...(inForce ? [inForce] : []), ...during]) {
      if (!s.acknowledged || assigneeOf(key, s.acknowledged) !== replica) return true;
      // Expired before the next renewal (or before `to`).
      const next = states.find((n) => n.at > s.at);
      if (s.expiresAt <= Math.min(to, next?.at ?? to)) return true;
    }
    return false;
  }

  /** Members live at `t`, each with the list it acknowledged. */
  liveAt(t: number): { identity: string; acknowledged: string[] }[] {
    return [...this.#states.keys()].flatMap((identity) => {
      const s = this.#stateAt(identity, t);
      return s?.acknowledged && t <= s.expiresAt ? [{ identity, acknowledged: s.acknowledged }] : [];
    });
  }

  #stateAt(replica: string, t: number): LeaseState | undefined {
    return (this.#states.get(replica) ?? []).findLast((s) => s.at <= t);
  }
}

/** The replica identity in `agent-deployment-operator/<version> (<identity>)`. */
export function replicaOf(userAgent: string | undefined): string {
  return /\(([^)]*)\)\s*$/.exec(userAgent ?? '')?.[1] ?? `unknown: ${userAgent}`;
}

/** The writes to deployments the simulator received, each with its object's key (`namespace/name`). */
export function deploymentWrites(
  records: readonly RequestRecord[],
  namespace: string,
  nameOfId: (id: string) => string | undefined,
): Write[] {
  return records.flatMap((r) => {
    if (r.method === 'GET' || !r.path.startsWith('/v2/deployments')) return [];
    const id = r.path.split('/')[3];
    const name = id ? nameOfId(id) : (r.body as { name?: string } | undefined)?.name;
    if (!name) return [];
    return [
      {
        at: r.at,
        replica: replicaOf(r.userAgent),
        key: `${namespace}/${name}`,
        what: `${r.method} ${r.route}`,
      },
    ];
  });
}

/**
 * The writes that break the rule: made by a replica that did not hold the key then, or made after
 * another replica's write of the key with no moment between at which that other replica let go.
 */
export function violations(writes: readonly Write[], history: LeaseHistory): string[] {
  const found: string[] = [];
  const lastWrite = new Map<string, Write>();
  for (const w of [...writes].sort((a, b) => a.at - b.at)) {
    if (!history.held(w.replica, w.key, w.at))
      found.push(`${w.what} of ${w.key} by ${w.replica}, which did not hold it`);
    const before = lastWrite.get(w.key);
    if (before && before.replica !== w.replica && !history.letGo(before.replica, w.key, before.at, w.at))
      found.push(`${w.what} of ${w.key} by ${w.replica} while ${before.replica} still held it`);
    lastWrite.set(w.key, w);
  }
  return found;
}
