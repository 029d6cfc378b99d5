/**
 * The AgentDeployment's gates, in the order they decide (DEVELOPMENT.md lists them, one line each). The
 * first gate with a verdict decides; a gate adds here once, and the controller and the plan both run it.
 */
import { decideChain } from '../chain-runner.ts';
import type { AgentDeploymentFacts } from './facts.ts';
import { analysis } from './gates/analysis.ts';
import { analysisRequest } from './gates/analysis-request.ts';
import { budgets } from './gates/budgets.ts';
import { claims } from './gates/claims.ts';
import { converge } from './gates/converge.ts';
import { credentials } from './gates/credentials.ts';
import { credentialsInUse } from './gates/credentials-in-use.ts';
import { defaultCredentialsScope } from './gates/default-credentials-scope.ts';
import { desired } from './gates/desired.ts';
import { fastRevert } from './gates/fast-revert.ts';
import { finalizer } from './gates/finalizer.ts';
import { followRevision } from './gates/follow-revision.ts';
import { holdWhileStalled } from './gates/hold-while-stalled.ts';
import { observeOnly } from './gates/observe-only.ts';
import { ownership } from './gates/ownership.ts';
import { paused } from './gates/paused.ts';
import { rollback } from './gates/rollback.ts';
import { rolledBack } from './gates/rolled-back.ts';
import { undo } from './gates/undo.ts';
import { window } from './gates/window.ts';
import type { Gate, GateName, Verdict } from './verdict.ts';

export const AGENT_DEPLOYMENT_GATES: readonly (readonly [GateName, Gate])[] = [
  ['paused', paused],
  ['holdWhileStalled', holdWhileStalled],
  ['defaultCredentialsScope', defaultCredentialsScope],
  ['finalizer', finalizer],
  ['budgets', budgets],
  ['credentialsInUse', credentialsInUse],
  ['credentials', credentials],
  ['desired', desired],
  ['claims', claims],
  ['ownership', ownership],
  ['observeOnly', observeOnly],
  ['analysisRequest', analysisRequest],
  ['undo', undo],
  ['window', window],
  ['fastRevert', fastRevert],
  ['converge', converge],
  ['rollback', rollback],
  ['rolledBack', rolledBack],
  ['analysis', analysis],
  ['followRevision', followRevision],
];

/** The verdict of the first gate that has one. */
export function decideAgentDeployment(
  facts: AgentDeploymentFacts,
  gates: readonly (readonly [GateName, Gate])[] = AGENT_DEPLOYMENT_GATES,
): Verdict {
  return decideChain(facts, gates);
}
