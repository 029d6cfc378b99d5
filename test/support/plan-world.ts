/** The plan's view of a test's cluster and simulator, as `kubectl agd plan` builds it. */
import { ControlPlaneClient } from '../../src/controlplane/client.ts';
import type { Credentials } from '../../src/controlplane/credentials.ts';
import { kubePlanReads } from '../../src/plan/kube.ts';
import type { PlanWorld } from '../../src/plan/model.ts';
import { readOnly } from '../../src/plan/read-only.ts';
import { DEFAULT_API_KEY } from '../../src/simulator/index.ts';
import type { Harness } from './harness.ts';

/** `clients` collects the clients it makes, for the test to close. */
export function planWorld(h: Harness, digestKey: string, clients: ControlPlaneClient[]): PlanWorld {
  return {
    kube: kubePlanReads(h.access, h.ns),
    defaultCredentials: { baseUrl: h.sim.url, apiKey: DEFAULT_API_KEY },
    digestKey,
    controlPlane(credentials: Credentials) {
      const client = new ControlPlaneClient({ credentials });
      clients.push(client);
      return readOnly(client);
    },
  };
}
