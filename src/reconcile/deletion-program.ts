/**
 * The deletion program, the one loop that feeds the deletion verdict (deletion.ts) for the controller's
 * finalize step and for `kubectl agd plan --prune`: a read is gathered through the port, a take (the
 * create guard proved the deployment this object's) and a DELETE are acted on by it, until the verdict
 * is final. A port without `delete` (the plan) gets the delete verdict back instead: it prints it.
 */
import type { Deployment } from '../controlplane/schemas.ts';
import { type DeletionCredentials, type DeletionFacts, type DeletionVerdict, deletion } from './deletion.ts';
import type { NameLookup, ReadById } from './ownership.ts';

/** A verdict the loop does not act on by itself: what its caller does with it. */
export type FinalDeletionVerdict = Exclude<
  DeletionVerdict,
  { kind: 'read' } | { kind: 'take' } | { kind: 'delete' } | { kind: 'none' }
>;

export interface DeletionPort {
  /** The object's credentials: the tenant they reach and other objects' claims (read first). */
  credentials(): Promise<DeletionCredentials>;
  /** The deployments of the object's name. */
  lookup(): Promise<NameLookup>;
  /** One deployment by id ('missing': 404). */
  find(id: string): Promise<ReadById>;
  /** The create guard proved `deployment` this object's: record it (the plan notes it). */
  take(deployment: Deployment, message: string): void;
  /** DELETE one id (a 404 answer means it is gone already); absent: the delete verdict is returned. */
  delete?(id: string, options: { deleteTracingProject: boolean }): Promise<void>;
}

export async function runDeletion(
  facts: DeletionFacts,
  port: DeletionPort,
): Promise<FinalDeletionVerdict | Extract<DeletionVerdict, { kind: 'delete' }>> {
  for (;;) {
    const verdict = deletion(facts);
    switch (verdict.kind) {
      case 'read':
        if (verdict.read === 'credentials') facts.credentials = await port.credentials();
        else if (verdict.read === 'byName') facts.byName = await port.lookup();
        else facts[verdict.read] = await port.find(facts.recordedId as string);
        continue;
      case 'take':
        port.take(verdict.deployment, verdict.event.message);
        facts.recordedId = verdict.deployment.id;
        continue;
      case 'delete':
        if (!port.delete) return verdict;
        await port.delete(verdict.id, { deleteTracingProject: verdict.deleteTracingProject });
        facts.sent = true;
        continue;
      case 'none':
        throw new Error('the deletion program was run for an object that is not being deleted');
      default:
        return verdict;
    }
  }
}
