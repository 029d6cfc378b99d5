/**
 * The environment of a controller process started as one replica of a --sharding=auto group, as a pod
 * named `pod` would run it against the test's API server and simulator. The tests choose the Lease
 * timings (the room their steps need) and may add to it.
 */
import { DEFAULT_API_KEY } from '../../src/simulator/index.ts';
import { type ControllerProcess, startControllerProcess } from './controller-process.ts';
import type { Harness } from './harness.ts';
import { testKubeconfigPath } from './kube.ts';

export function shardedReplicaEnv(
  h: Harness,
  pod: string,
  group: string,
  lease: { duration: string; renewDeadline: string; retryPeriod: string },
): Record<string, string> {
  return {
    KUBECONFIG: testKubeconfigPath(),
    CONTROL_PLANE_URL: h.sim.url,
    CONTROL_PLANE_API_KEY: DEFAULT_API_KEY,
    WATCH_NAMESPACES: h.ns,
    POD_NAME: pod,
    POD_NAMESPACE: h.ns,
    SHARDING: 'auto',
    LEADER_ELECTION_ID: group,
    LEADER_ELECTION_LEASE_DURATION: lease.duration,
    LEADER_ELECTION_RENEW_DEADLINE: lease.renewDeadline,
    LEADER_ELECTION_RETRY_PERIOD: lease.retryPeriod,
    POLL_INTERVAL: '2s',
    REVISION_POLL_INTERVAL: '300ms',
    HTTP_PORT: '0',
    LOG_LEVEL: 'info',
  };
}

/**
 * Starts one replica as a controller process (its output lines into `output`, labelled with its pod
 * name) and resolves once its workers start; the process is kept in `replicas` under its pod name.
 */
export async function startShardedReplica(
  h: Harness,
  pod: string,
  group: string,
  lease: { duration: string; renewDeadline: string; retryPeriod: string },
  into: { replicas: Map<string, ControllerProcess>; output: string[] },
): Promise<void> {
  const started = startControllerProcess(shardedReplicaEnv(h, pod, group, lease), into.output, pod);
  into.replicas.set(pod, started);
  await started.waitForLine((line) => line.includes('caches synced; starting workers'));
}
