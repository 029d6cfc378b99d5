/** Gate `credentialsSecret`: an object naming its own credentials reads that Secret first. */
import type { TemplateGate } from '../verdict.ts';

export const credentialsSecret: TemplateGate = (facts) =>
  facts.object.spec.credentialsSecretRef && !facts.credentialsSecret
    ? { gate: 'credentialsSecret', kind: 'read', read: 'credentialsSecret' }
    : undefined;
