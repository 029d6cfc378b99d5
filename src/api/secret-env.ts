/** spec.secrets and spec.secretsFrom: the deployment's secrets, literal or from the namespace's Secrets. */
import { z } from 'zod';
import { C_IDENTIFIER_CEL, cel, envName, localRef, objectName } from './common.ts';

export const SecretKeySelector = z.object({
  name: objectName().describe("Name of a Secret in the object's namespace."),
  key: z.string().min(1).max(253).describe('Key within the Secret.'),
});

export const SecretEnv = z
  .object({
    name: envName('spec.secrets[].name').describe('Name of the environment variable: a C identifier.'),
    value: z
      .string()
      .max(65536)
      .optional()
      .describe('Literal value. Prefer valueFrom: a literal value sits in git and in the object.'),
    valueFrom: z
      .object({
        secretKeyRef: SecretKeySelector.describe("A key of a Secret in the object's namespace."),
      })
      .optional()
      .describe('Take the value from a key of a Secret, resolved by the controller at reconcile time.'),
  })
  .meta(
    cel(
      {
        rule: '!(has(self.value) && has(self.valueFrom))',
        message: 'spec.secrets[]: value and valueFrom must not both be set',
      },
      {
        rule: 'has(self.value) || has(self.valueFrom)',
        message: 'spec.secrets[]: one of value or valueFrom is required',
      },
    ),
  );
export type SecretEnv = z.infer<typeof SecretEnv>;

export const SecretsFrom = z.object({
  secretRef: localRef("Name of a Secret in the object's namespace; every key becomes a secret.").describe(
    "A Secret in the object's namespace.",
  ),
  prefix: z
    .string()
    .max(253)
    .meta(
      cel({
        rule: C_IDENTIFIER_CEL,
        message: 'spec.secretsFrom[].prefix must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)',
      }),
    )
    .optional()
    .describe('Prefix prepended to every key of the Secret to form the secret names.'),
});
export type SecretsFrom = z.infer<typeof SecretsFrom>;
