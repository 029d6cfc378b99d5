/**
 * Which deployment each object records, under which credentials (observer.ts): what the batched poll
 * lists, grouped by credential identity. Each pass resolves its credentials anew, so one copy is kept
 * per credential identity, not one per object.
 */
import { type Credentials, credentialsKey } from '../../../controlplane/credentials.ts';
import { splitKey } from '../../../runtime/keys.ts';

/** One credential identity's objects: their deployments' ids, each to its object's key. */
export interface Group {
  credentials: Credentials;
  keysById: Map<string, string>;
  /** Of those ids, the configuration (configurationDigest) its object's last pass found in sync with the spec. */
  matched: Map<string, string>;
}

export interface Tracked {
  /** credentialsKey of its credentials. */
  credentialsId: string;
  deploymentId: string;
  /** configurationDigest of the deployment its object's pass found in sync with the spec; unset: none. */
  matched?: string | undefined;
}

export class TrackedDeployments {
  readonly #tracked = new Map<string, Tracked>();
  readonly #credentials = new Map<
    string,
    { id: string; credentials: Credentials; users: Set<string>; namespaces: Map<string, number> }
  >();

  /**
   * Tracks `key`'s deployment, and the configuration its pass found in sync with the spec (`matched`;
   * undefined: none, the pass did not find it in sync); what it tracked before, when that was another
   * one (its snapshot goes).
   */
  track(key: string, credentials: Credentials, deploymentId: string, matched?: string): Tracked | undefined {
    let credentialsId = credentialsKey(credentials);
    let shared = this.#credentials.get(credentialsId);
    if (shared) {
      credentialsId = shared.id; // the one copy of the id string, not this pass's
    } else {
      shared = { id: credentialsId, credentials, users: new Set(), namespaces: new Map() };
      this.#credentials.set(credentialsId, shared);
    }
    if (!shared.users.has(key)) {
      shared.users.add(key);
      const namespace = splitKey(key).namespace;
      shared.namespaces.set(namespace, (shared.namespaces.get(namespace) ?? 0) + 1);
    }
    const before = this.#tracked.get(key);
    if (before && before.credentialsId !== credentialsId) this.#release(key, before.credentialsId);
    this.#tracked.set(
      key,
      matched === undefined ? { credentialsId, deploymentId } : { credentialsId, deploymentId, matched },
    );
    const replaced =
      before && (before.credentialsId !== credentialsId || before.deploymentId !== deploymentId);
    return replaced ? before : undefined;
  }

  /** The configuration `key`'s pass found in sync is no longer known (a pass of it begins). */
  unmatch(key: string): void {
    const tracked = this.#tracked.get(key);
    if (tracked?.matched !== undefined) tracked.matched = undefined;
  }

  /** Stops tracking `key`; what it tracked, if anything. */
  untrack(key: string): Tracked | undefined {
    const tracked = this.#tracked.get(key);
    this.#tracked.delete(key);
    if (tracked) this.#release(key, tracked.credentialsId);
    return tracked;
  }

  /** Whether an object of `namespace` is tracked under the credential identity `credentialsId`. */
  uses(namespace: string, credentialsId: string): boolean {
    return this.#credentials.get(credentialsId)?.namespaces.has(namespace) ?? false;
  }

  /** Every tracked deployment, grouped by credential identity. */
  groups(): Map<string, Group> {
    const groups = new Map<string, Group>();
    for (const [key, t] of this.#tracked) {
      const credentials = this.#credentials.get(t.credentialsId)?.credentials;
      if (!credentials) continue;
      const group = groups.get(t.credentialsId) ?? {
        credentials,
        keysById: new Map<string, string>(),
        matched: new Map<string, string>(),
      };
      group.keysById.set(t.deploymentId, key);
      if (t.matched !== undefined) group.matched.set(t.deploymentId, t.matched);
      groups.set(t.credentialsId, group);
    }
    return groups;
  }

  #release(key: string, credentialsId: string): void {
    const shared = this.#credentials.get(credentialsId);
    if (!shared?.users.delete(key)) return;
    const namespace = splitKey(key).namespace;
    const left = (shared.namespaces.get(namespace) ?? 1) - 1;
    if (left > 0) shared.namespaces.set(namespace, left);
    else shared.namespaces.delete(namespace);
    if (shared.users.size === 0) this.#credentials.delete(credentialsId);
  }
}
