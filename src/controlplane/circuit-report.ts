/**
 * What an operator sees of a credential identity's circuit breaker: one log line and one count per
 * opening and per closing (the breaker tells each transition once), by the identity's digest
 * (credentialsKey: no part of any credential) and its control plane's origin, never the key.
 */
import type { Logger } from 'pino';

export interface CircuitCounter {
  inc(labels: { identity: string; state: 'open' | 'closed' }): void;
}

export function circuitReporter(
  logger: Logger,
  counter: CircuitCounter,
): (identity: string, state: 'open' | 'closed', origin: string) => void {
  return (identity, state, origin) => {
    counter.inc({ identity, state });
    const fields = { identity, controlPlane: origin };
    if (state === 'open') {
      logger.warn(
        fields,
        'control-plane circuit opened: calls with these credentials are paused while the controller probes the server',
      );
    } else {
      logger.info(
        fields,
        'control-plane circuit closed: the server answered the probe, calls with these credentials resume',
      );
    }
  };
}
