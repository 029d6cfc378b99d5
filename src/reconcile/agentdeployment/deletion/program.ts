/**
 * The deletion program, run by the one chain runner (../chain-runner.ts) for the controller's finalize
 * step and for `kubectl agd plan --prune`: a read is gathered through the port; a take (the create guard
 * proved the deployment this object's) and a DELETE are bookkeeping: the port acts, the facts advance.
 * The plan's port does not delete: the delete verdict is final for it, and printed.
 */
import { type ChainPort, type ChainProgram, decideChain, runChain } from '../../chain-runner.ts';
import { DELETION_GATES, type DeletionGates } from './chain.ts';
import type { DeletionFacts } from './facts.ts';
import type { DeletionBookkeeping, DeletionVerdict, FinalDeletionVerdict } from './verdict.ts';

type Take = Extract<DeletionVerdict, { kind: 'take' }>;
type Delete = Extract<DeletionVerdict, { kind: 'delete' }>;

/** The controller's port: reads, records a take, sends the DELETE (a 404 answer: gone already). */
export interface DeletionPort extends ChainPort<DeletionFacts, DeletionVerdict, DeletionBookkeeping> {
  act(verdict: DeletionBookkeeping, facts: DeletionFacts): Promise<void>;
}

/** The plan's port: reads, and notes a take. */
export interface DeletionPlanPort extends ChainPort<DeletionFacts, DeletionVerdict, Take> {
  act(verdict: Take, facts: DeletionFacts): Promise<void>;
}

/** The facts after a take or a DELETE. */
function advance(facts: DeletionFacts, verdict: DeletionBookkeeping): void {
  if (verdict.kind === 'take') facts.recordedId = verdict.deployment.id;
  else facts.sent = true;
}

const program = <B extends DeletionBookkeeping>(
  gates: DeletionGates,
  bookkeeping: ReadonlySet<string>,
): ChainProgram<DeletionFacts, DeletionVerdict, B> => ({
  gates,
  isBookkeeping: (verdict): verdict is B => bookkeeping.has(verdict.kind),
  advance,
});

/** The verdict of the first gate that has one. */
export const deletion = (facts: DeletionFacts, gates: DeletionGates = DELETION_GATES): DeletionVerdict =>
  decideChain(facts, gates);

/** The controller's run, until a final verdict (`gates`: the whole chain, or a test's). */
export const runDeletion = (
  facts: DeletionFacts,
  port: DeletionPort,
  gates: DeletionGates = DELETION_GATES,
): Promise<FinalDeletionVerdict> =>
  runChain(facts, program<DeletionBookkeeping>(gates, new Set(['take', 'delete'])), port);

/** The plan's run: the delete verdict comes back, printed instead of sent. */
export const planDeletion = (
  facts: DeletionFacts,
  port: DeletionPlanPort,
  gates: DeletionGates = DELETION_GATES,
): Promise<FinalDeletionVerdict | Delete> => runChain(facts, program<Take>(gates, new Set(['take'])), port);
