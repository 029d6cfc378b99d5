/**
 * The Deployment a local run or a test makes where no pod runs the controller: of no replicas, it
 * stands for the one an install runs the controller in, which the controller's published settings
 * name as their owner (runtime/publish-settings.ts; the plan believes them only then).
 */
export const CONTROLLER_DEPLOYMENT = 'agent-deployment-operator';

export function controllerStandIn(namespace: string, image: string) {
  const labels = { 'app.kubernetes.io/name': CONTROLLER_DEPLOYMENT };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROLLER_DEPLOYMENT, namespace, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        // As the chart's: the namespace's restricted Pod Security level admits it without a warning.
        spec: {
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'controller',
              image,
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}
