/**
 * The AgentDeployment program, gather -> decide, the one loop that runs it: the chain decides; a `read`
 * is gathered (by the port, or derived), a bookkeeping verdict is acted on by the port and the facts
 * advance; a final verdict is returned for the caller to act on (the controller) or print (the plan).
 */
import { advance, derive, isDerived, learnRevision } from './advance.ts';
import { decideAgentDeployment } from './chain.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import type { Bookkeeping, FinalVerdict, Gate, GateName, WorldRead } from './verdict.ts';

/** What a caller does for the program: read the world, and act on bookkeeping (or only note it). */
export interface ProgramPort {
  /** Fills in `facts[read]` (the Secrets, the claims, a GET by id, the name lookup). */
  read(read: WorldRead, facts: AgentDeploymentFacts): Promise<void>;
  /** Acts on a bookkeeping verdict before the facts advance (a plan notes it, or does nothing). */
  act(verdict: Bookkeeping, facts: AgentDeploymentFacts): Promise<void>;
}

export async function runAgentDeployment(
  facts: AgentDeploymentFacts,
  port: ProgramPort,
  gates?: readonly (readonly [GateName, Gate])[],
): Promise<FinalVerdict> {
  for (;;) {
    const verdict = decideAgentDeployment(facts, gates);
    switch (verdict.kind) {
      case 'read':
        if (isDerived(verdict.read)) derive(facts, verdict.read);
        else {
          await port.read(verdict.read, facts);
          if (verdict.read === 'revision') learnRevision(facts);
        }
        continue;
      case 'prepare':
      case 'forget':
      case 'own':
      case 'inSync':
      case 'observed':
        await port.act(verdict, facts);
        advance(facts, verdict);
        continue;
      default:
        return verdict;
    }
  }
}
