/**
 * The operator's own key: a Secret it owns in its own namespace, created on first use when missing (two
 * replicas racing: the loser of the create reads the winner's). It keys the secrets digests in status
 * and the webhook tokens, so it must outlive restarts and credential rotations. Loaded once per process;
 * a failed load is retried on the next use. The key never leaves this module except as HMACs.
 */

import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { KubeAccess } from '../kube/access.ts';
import { ConflictError, NotFoundError } from '../kube/errors.ts';
import { kubeRequest } from '../kube/request.ts';

/** Fixed, so RBAC can name it (scripts/rbac-rules.ts). */
export const OPERATOR_KEY_SECRET = 'agent-deployment-operator-keys';
/**
 * Its name before 0.2: read once to carry the key over, since a new key would change every secrets
 * digest, read as rotated secrets, and redeploy everything.
 */
export const LEGACY_KEY_SECRET = 'agent-deployment-operator-webhook-key';
const DATA_KEY = 'key';

const SecretData = z.looseObject({ data: z.record(z.string(), z.string()).optional() });

export class OperatorKeySecret {
  readonly #access: KubeAccess;
  readonly #namespace: string;
  #loading: Promise<Buffer> | undefined;

  constructor(access: KubeAccess, namespace: string) {
    this.#access = access;
    this.#namespace = namespace;
  }

  get(): Promise<Buffer> {
    if (!this.#loading) {
      this.#loading = this.#load().catch((err: unknown) => {
        this.#loading = undefined;
        throw err;
      });
    }
    return this.#loading;
  }

  /** The key as stored, never creating it (a reader such as the plan must not); undefined when absent. */
  async peek(): Promise<Buffer | undefined> {
    return (await this.#read(OPERATOR_KEY_SECRET)) ?? (await this.#read(LEGACY_KEY_SECRET));
  }

  async #load(): Promise<Buffer> {
    const existing = await this.#read(OPERATOR_KEY_SECRET);
    if (existing) return existing;
    const key = (await this.#read(LEGACY_KEY_SECRET)) ?? randomBytes(32);
    try {
      await kubeRequest(this.#access, {
        method: 'POST',
        path: `/api/v1/namespaces/${this.#namespace}/secrets`,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          type: 'Opaque',
          metadata: {
            name: OPERATOR_KEY_SECRET,
            namespace: this.#namespace,
            labels: { 'app.kubernetes.io/managed-by': 'agent-deployment-operator' },
          },
          data: { [DATA_KEY]: key.toString('base64') },
        },
      });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
    const created = await this.#read(OPERATOR_KEY_SECRET);
    if (!created)
      throw new Error(`Secret ${this.#namespace}/${OPERATOR_KEY_SECRET} has no key "${DATA_KEY}"`);
    return created;
  }

  async #read(name: string): Promise<Buffer | undefined> {
    try {
      const secret = SecretData.parse(
        await kubeRequest(this.#access, {
          method: 'GET',
          path: `/api/v1/namespaces/${this.#namespace}/secrets/${name}`,
        }),
      );
      const b64 = secret.data?.[DATA_KEY];
      const key = b64 ? Buffer.from(b64, 'base64') : undefined;
      if (!key || key.length < 16) {
        throw new Error(`Secret ${this.#namespace}/${name} has no usable key "${DATA_KEY}"`);
      }
      return key;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }
}

/**
 * The key of the secrets digests, derived from the operator's key. It must stay the same across restarts
 * and credential rotations: a new key changes every digest, which reads as rotated secrets and redeploys
 * every deployment.
 */
export function secretsDigestKeyFrom(operatorKey: Buffer): string {
  return createHmac('sha256', operatorKey).update('agent-deployment-operator/secrets-digest').digest('hex');
}
