/**
 * The SandboxTemplate program, the AgentDeployment's design (DEVELOPMENT.md, "One program"): the facts
 * a pass reads (facts.ts), one chain of named pure gates (chain.ts) with one verdict type (verdict.ts),
 * run by the one chain runner (../chain-runner.ts). The controller acts on the verdict (records what it
 * observed, reports drift); `kubectl agd plan` prints it. A template is only observed: no verdict writes
 * anything, so the program has no bookkeeping.
 */
import { type ChainPort, type ChainProgram, decideChain, type GateList, runChain } from '../chain-runner.ts';
import { credentialsFact } from '../credentials.ts';
import { TEMPLATE_GATES } from './chain.ts';
import type { TemplateFacts } from './facts.ts';
import type { FinalTemplateVerdict, TemplateGateName, TemplateVerdict } from './verdict.ts';

export type TemplateGates = GateList<TemplateFacts, TemplateVerdict, TemplateGateName>;

/** Reads the credentials Secret, or lists the templates, into the facts. */
export type TemplatePort = ChainPort<TemplateFacts, TemplateVerdict, never, 'credentials'>;

export const templateProgram = (
  gates: TemplateGates = TEMPLATE_GATES,
): ChainProgram<TemplateFacts, TemplateVerdict, never, 'credentials'> => ({
  gates,
  isDerived: (read): read is 'credentials' => read === 'credentials',
  // The credentials as for an AgentDeployment, from the Secret read.
  derive(facts) {
    const data = facts.credentialsSecret?.data;
    facts.credentials = credentialsFact(
      facts.object.spec.credentialsSecretRef,
      () => data,
      facts.settings.credentialsPolicy,
    );
  },
});

export const decideTemplate = (
  facts: TemplateFacts,
  gates: TemplateGates = TEMPLATE_GATES,
): TemplateVerdict => decideChain(facts, gates);

export const runTemplate = (
  facts: TemplateFacts,
  port: TemplatePort,
  gates?: TemplateGates,
): Promise<FinalTemplateVerdict> => runChain(facts, templateProgram(gates), port);
