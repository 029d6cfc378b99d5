/** Annotations the controller reads on AgentDeployment and SandboxTemplate objects. */
export const Annotation = {
  /** "true" stops reconciliation (the object's status says so); any other value or absence resumes it. */
  Paused: 'deploy.agents.dev/paused',
  /** Any new value (conventionally an RFC 3339 time) asks for a reconcile now. */
  ReconcileRequestedAt: 'deploy.agents.dev/reconcile-requested-at',
  /**
   * Any new value (conventionally an RFC 3339 time) redeploys the latest revision once, e.g. to retry a
   * DEPLOY_FAILED one without a spec change. Handled once per value.
   */
  RedeployRequestedAt: 'deploy.agents.dev/redeploy-requested-at',
  /** Per-object poll interval as a duration (`30s`, `5m`), overriding the controller's default. */
  PollInterval: 'deploy.agents.dev/poll-interval',
  /** Adopt an existing control-plane deployment by id instead of creating one. */
  AdoptDeploymentId: 'deploy.agents.dev/adopt-deployment-id',
} as const;
export type Annotation = (typeof Annotation)[keyof typeof Annotation];
