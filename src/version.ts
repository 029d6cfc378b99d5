/**
 * The controller's version (package.json's, checked by version.test.ts) and the User-Agent it sends to
 * control planes: `agent-deployment-operator/<version> (<replica identity>)`, so a platform's audit log
 * tells replicas apart (the identity starts with the pod name).
 */
export const OPERATOR_VERSION = '0.1.0';

export function userAgent(identity?: string): string {
  const product = `agent-deployment-operator/${OPERATOR_VERSION}`;
  // The identity is ours (pod name and a random suffix), but keep the header one clean token list.
  return identity ? `${product} (${identity.replace(/[^\x20-\x7e]|[()]/g, '-')})` : product;
}
