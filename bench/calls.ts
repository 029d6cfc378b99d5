/**
 * Control-plane calls from the simulator's request log: grouped by operation (method + route template)
 * and attributed to the object they served, so calls per converged object count only what each object
 * cost until it was Ready.
 */
import type { RequestRecord } from '../src/simulator/index.ts';

export const CREATE_OP = 'POST /v2/deployments';
export const PATCH_OP = 'PATCH /v2/deployments/{deployment_id}';

export const LOOKUP_OP = 'GET /v2/deployments';

export const DEPLOYMENT_OP = 'GET /v2/deployments/{deployment_id}';

/**
 * The fewest calls a new object can converge with and keep ownership sound: the name lookup before the
 * create (a live deployment of the name that it does not own must stop it), one create, one read that
 * sees the revision DEPLOYED: the deployment's, which shows it active and is what status records.
 */
export const MINIMUM_CALLS: Readonly<Record<string, number>> = {
  [LOOKUP_OP]: 1,
  [CREATE_OP]: 1,
  [DEPLOYMENT_OP]: 1,
};
export const MINIMUM_CALLS_TOTAL = Object.values(MINIMUM_CALLS).reduce((a, b) => a + b, 0);

export const operationOf = (r: RequestRecord) => `${r.method} ${r.route}`;

/** The object (deployment name) a call was made for; undefined for calls serving many (batched lists). */
export function objectOf(r: RequestRecord, nameById: ReadonlyMap<string, string>): string | undefined {
  if (r.route === '/v2/deployments') {
    if (r.method === 'POST') {
      const name = (r.body as { name?: unknown } | undefined)?.name;
      return typeof name === 'string' ? name : undefined;
    }
    return r.query.name_contains;
  }
  const id = /^\/v2\/deployments\/([^/]+)/.exec(r.path)?.[1];
  return id === undefined ? undefined : nameById.get(id);
}

export function countByOperation(records: readonly RequestRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[operationOf(r)] = (out[operationOf(r)] ?? 0) + 1;
  return out;
}

/**
 * Calls per converged object by operation: each object's own calls up to its Ready time, plus the calls
 * serving many objects made before all were Ready, shared out evenly.
 */
export function callsPerConvergedObject(options: {
  records: readonly RequestRecord[];
  nameById: ReadonlyMap<string, string>;
  readyAt: ReadonlyMap<string, number>;
  allReadyAt: number;
}): { byOperation: Record<string, number>; total: number; sharedCalls: number } {
  const { records, nameById, readyAt, allReadyAt } = options;
  const counted: RequestRecord[] = [];
  let sharedCalls = 0;
  for (const r of records) {
    const name = objectOf(r, nameById);
    if (name === undefined) {
      if (r.at <= allReadyAt) {
        counted.push(r);
        sharedCalls += 1;
      }
      continue;
    }
    const ready = readyAt.get(name);
    if (ready !== undefined && r.at <= ready) counted.push(r);
  }
  const n = Math.max(1, readyAt.size);
  const byOperation = Object.fromEntries(
    Object.entries(countByOperation(counted)).map(([op, count]) => [op, count / n]),
  );
  return { byOperation, total: counted.length / n, sharedCalls };
}

/**
 * When the first steady poll at or after `since` began: the first batched status list (`deployment_ids`)
 * that follows at least `quietMs` without one. Undefined while no such poll has started. The steady
 * window starts there, so it holds whole polls: a window cut at an arbitrary moment holds the tail of
 * one poll and the head of another, and at N = 10,000 (one poll spread over 5 s) that reads as 103 calls
 * per interval where each poll made 100.
 */
export function pollStartAfter(
  records: readonly RequestRecord[],
  since: number,
  quietMs: number,
): number | undefined {
  let previous = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    if (operationOf(r) !== LOOKUP_OP || r.query.deployment_ids === undefined) continue;
    if (r.at >= since && r.at - previous >= quietMs) return r.at;
    previous = r.at;
  }
  return undefined;
}
