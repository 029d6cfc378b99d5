/** The API group, version and the names under which each kind is served. */
export const GROUP = 'deploy.agents.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** `kubectl get agents` lists every kind of this group. */
export const CATEGORY = 'agents';

export type KindNames = {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
};

export const AGENT_DEPLOYMENT = {
  kind: 'AgentDeployment',
  listKind: 'AgentDeploymentList',
  plural: 'agentdeployments',
  singular: 'agentdeployment',
  shortNames: ['agd'],
} as const satisfies KindNames;

export const SANDBOX_TEMPLATE = {
  kind: 'SandboxTemplate',
  listKind: 'SandboxTemplateList',
  plural: 'sandboxtemplates',
  singular: 'sandboxtemplate',
  shortNames: ['sbt'],
} as const satisfies KindNames;

export const DEPLOYMENT_WINDOW_POLICY = {
  kind: 'DeploymentWindowPolicy',
  listKind: 'DeploymentWindowPolicyList',
  plural: 'deploymentwindowpolicies',
  singular: 'deploymentwindowpolicy',
  shortNames: ['dwp'],
} as const satisfies KindNames;
