/**
 * The SandboxTemplate's gates, in order: the three it shares with the AgentDeployment (paused, the
 * default-credentials scope, the credentials, after its own read of the credentials Secret), then its
 * own: list the templates, resolve the exact name, and its drift.
 */
import { credentials } from '../agentdeployment/gates/credentials.ts';
import { defaultCredentialsScope } from '../agentdeployment/gates/default-credentials-scope.ts';
import { paused } from '../agentdeployment/gates/paused.ts';
import type { GateList } from '../chain-runner.ts';
import type { TemplateFacts } from './facts.ts';
import { credentialsSecret } from './gates/credentials-secret.ts';
import { drift } from './gates/drift.ts';
import { resolve } from './gates/resolve.ts';
import { templates } from './gates/templates.ts';
import type { TemplateGate, TemplateGateName, TemplateVerdict } from './verdict.ts';

export const TEMPLATE_GATES: GateList<TemplateFacts, TemplateVerdict, TemplateGateName> = [
  ['paused', paused as TemplateGate],
  ['defaultCredentialsScope', defaultCredentialsScope as TemplateGate],
  ['credentialsSecret', credentialsSecret],
  ['credentials', credentials as TemplateGate],
  ['templates', templates],
  ['resolve', resolve],
  ['drift', drift],
];
