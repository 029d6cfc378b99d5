/**
 * The AgentDeployment program, gather -> decide, run by the one chain runner (../chain-runner.ts): a
 * `read` is gathered (by the port, or derived by advance.ts), a bookkeeping verdict is acted on by the
 * port and the facts advance; a final verdict is returned for the caller to act on (the controller) or
 * print (the plan).
 */
import { type ChainPort, type ChainProgram, runChain } from '../chain-runner.ts';
import { advance, derive, isDerived, learnRevision } from './advance.ts';
import { AGENT_DEPLOYMENT_GATES } from './chain.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import type { Bookkeeping, DerivedRead, FinalVerdict, Gate, GateName, Verdict } from './verdict.ts';

/** What a caller does for the program: read the world, and act on bookkeeping (or only note it). */
export interface ProgramPort extends ChainPort<AgentDeploymentFacts, Verdict, Bookkeeping, DerivedRead> {
  act(verdict: Bookkeeping, facts: AgentDeploymentFacts): Promise<void>;
}

const BOOKKEEPING: ReadonlySet<string> = new Set<Bookkeeping['kind']>([
  'prepare',
  'forget',
  'own',
  'inSync',
  'observed',
  'analysis',
]);

/** The program around a chain of gates (`gates`: the whole chain, or a test's with one taken out). */
export const agentDeploymentProgram = (
  gates: readonly (readonly [GateName, Gate])[] = AGENT_DEPLOYMENT_GATES,
): ChainProgram<AgentDeploymentFacts, Verdict, Bookkeeping, DerivedRead> => ({
  gates,
  isDerived,
  derive,
  // What the revision read shows (its history), the facts learn.
  learn: (facts, read) => {
    if (read === 'revision') learnRevision(facts);
  },
  isBookkeeping: (verdict): verdict is Bookkeeping => BOOKKEEPING.has(verdict.kind),
  advance,
});

export function runAgentDeployment(
  facts: AgentDeploymentFacts,
  port: ProgramPort,
  gates?: readonly (readonly [GateName, Gate])[],
): Promise<FinalVerdict> {
  return runChain(facts, agentDeploymentProgram(gates), port);
}
