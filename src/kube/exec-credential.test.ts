import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecCredentialError, runExecCredential } from './exec-credential.ts';
import type { ExecConfig } from './kubeconfig.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
/** The plugins run with this environment: enough for sh to find cat, printf and base64. */
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agd-exec-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let scripts = 0;
/** A `#!/bin/sh` plugin with this body, executable. */
async function plugin(body: string): Promise<string> {
  const path = join(dir, `plugin-${++scripts}.sh`);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** A plugin that prints this document. */
async function answering(doc: unknown): Promise<string> {
  const json = join(dir, `answer-${++scripts}.json`);
  await writeFile(json, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return plugin(`cat '${json}'`);
}

const credential = (status: unknown, apiVersion = V1) => ({ apiVersion, kind: 'ExecCredential', status });
const config = (command: string, more: Partial<ExecConfig> = {}): ExecConfig => ({
  command,
  apiVersion: V1,
  ...more,
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('runExecCredential: answers', () => {
  it.each<[string, unknown, string, Awaited<ReturnType<typeof runExecCredential>>]>([
    ['a token', credential({ token: 'tok-1' }), V1, { token: 'tok-1' }],
    [
      'a client certificate and key',
      credential({ clientCertificateData: 'CERT-PEM', clientKeyData: 'KEY-PEM' }),
      V1,
      { clientCertificate: 'CERT-PEM', clientKey: 'KEY-PEM' },
    ],
    [
      'a token and a certificate',
      credential({ token: 't', clientCertificateData: 'C', clientKeyData: 'K' }),
      V1,
      { token: 't', clientCertificate: 'C', clientKey: 'K' },
    ],
    [
      'a token with an expiry',
      credential({ token: 't', expirationTimestamp: '2030-01-02T03:04:05Z' }),
      V1,
      { token: 't', expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5) },
    ],
    [
      'an expiry with an offset and fractional seconds',
      credential({ token: 't', expirationTimestamp: '2030-01-02T05:04:05.250+02:00' }),
      V1,
      { token: 't', expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5, 250) },
    ],
    [
      'an empty expiry: valid until refused',
      credential({ token: 't', expirationTimestamp: '' }),
      V1,
      { token: 't' },
    ],
    ['v1beta1', credential({ token: 'beta' }, V1BETA1), V1BETA1, { token: 'beta' }],
    [
      'extra fields',
      { ...credential({ token: 't', somethingNew: 1 }), spec: { interactive: false } },
      V1,
      { token: 't' },
    ],
  ])('%s', async (_case, doc, apiVersion, want) => {
    const command = await answering(doc);
    await expect(runExecCredential(config(command, { apiVersion }), ENV)).resolves.toEqual(want);
  });

  it('passes args, the parent environment and the env entries, which win', async () => {
    const command = await plugin(
      `printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"%s|%s|%s|%s"}}' "$1-$2" "$FROM_PARENT" "$FROM_CONFIG" "$BOTH"`,
    );
    const result = await runExecCredential(
      config(command, {
        args: ['get-token', '--cluster=dev'],
        env: [
          { name: 'FROM_CONFIG', value: 'config value' },
          { name: 'BOTH', value: 'from config' },
        ],
      }),
      { ...ENV, FROM_PARENT: 'parent value', BOTH: 'from parent' },
    );
    expect(result.token).toBe('get-token---cluster=dev|parent value|config value|from config');
  });

  it('gives the plugin KUBERNETES_EXEC_INFO for the apiVersion asked for, not interactive', async () => {
    const command = await plugin(
      `info=$(printf %s "$KUBERNETES_EXEC_INFO" | base64 | tr -d '\\n')
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"}}' "$API" "$info"`,
    );
    for (const apiVersion of [V1, V1BETA1]) {
      const result = await runExecCredential(
        config(command, { apiVersion, env: [{ name: 'API', value: apiVersion }] }),
        ENV,
      );
      expect(JSON.parse(Buffer.from(result.token ?? '', 'base64').toString())).toEqual({
        apiVersion,
        kind: 'ExecCredential',
        spec: { interactive: false },
      });
    }
  });

  it('adds the cluster to KUBERNETES_EXEC_INFO when given one (provideClusterInfo)', async () => {
    const command = await plugin(
      `printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"%s"}}' "$(printf %s "$KUBERNETES_EXEC_INFO" | base64 | tr -d '\\n')"`,
    );
    const cluster = { server: 'https://k.example.com', 'certificate-authority-data': 'Q0E=' };
    const result = await runExecCredential(config(command), ENV, cluster);
    expect(JSON.parse(Buffer.from(result.token ?? '', 'base64').toString()).spec).toEqual({
      interactive: false,
      cluster,
    });
  });

  it('replaces a KUBERNETES_EXEC_INFO inherited from the parent', async () => {
    const command = await plugin(
      `printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"%s"}}' "$(printf %s "$KUBERNETES_EXEC_INFO" | base64 | tr -d '\\n')"`,
    );
    const result = await runExecCredential(config(command), { ...ENV, KUBERNETES_EXEC_INFO: 'stale' });
    expect(JSON.parse(Buffer.from(result.token ?? '', 'base64').toString()).kind).toBe('ExecCredential');
  });

  it('closes the plugin’s stdin', async () => {
    // A plugin that reads stdin sees its end at once instead of waiting for a terminal.
    const command = await plugin(
      `input=$(cat)
printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"read[%s]"}}' "$input"`,
    );
    await expect(runExecCredential(config(command), ENV)).resolves.toEqual({ token: 'read[]' });
  });
});

describe('runExecCredential: failures name the plugin', () => {
  it('quotes stderr when the plugin exits non-zero', async () => {
    const command = await plugin(`echo 'partial output'
echo '  error: you must be logged in to the server  ' >&2
exit 3`);
    const err = await failure(runExecCredential(config(command), ENV));
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err.message).toBe(
      `exec plugin ${command}: exit code 3: error: you must be logged in to the server`,
    );
  });

  it('says a signal killed it', async () => {
    const command = await plugin('kill -TERM $$');
    const err = await failure(runExecCredential(config(command), ENV));
    expect(err.message).toContain(`exec plugin ${command}: killed by SIGTERM`);
  });

  it.each<[string, string | undefined, string]>([
    [
      'with the install hint',
      '  Install it with: brew install kubelogin\n',
      ' (Install it with: brew install kubelogin)',
    ],
    ['without a hint', undefined, ''],
  ])('names a command that does not exist, %s', async (_case, installHint, hint) => {
    const command = join(dir, 'no-such-plugin');
    const err = await failure(
      runExecCredential(config(command, installHint === undefined ? {} : { installHint }), ENV),
    );
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err.message).toBe(`exec plugin ${command}: spawn ${command} ENOENT${hint}`);
  });

  it('finds a bare command name on the PATH of the environment given', async () => {
    const command = await answering(credential({ token: 'via-path' }));
    const name = command.slice(dir.length + 1);
    await expect(runExecCredential(config(name), { PATH: `${dir}:${ENV.PATH}` })).resolves.toEqual({
      token: 'via-path',
    });
    const err = await failure(runExecCredential(config(name, { installHint: 'get it' }), ENV));
    expect(err.message).toBe(`exec plugin ${name}: spawn ${name} ENOENT (get it)`);
  });

  it.each<[string, unknown, string]>([
    ['output that is not JSON', 'token: abc', 'its output is not JSON'],
    ['no output', '', 'its output is not JSON'],
    [
      'the wrong kind',
      { apiVersion: V1, kind: 'Secret', status: { token: 't' } },
      'its output is not an ExecCredential (kind: Invalid input: expected "ExecCredential")',
    ],
    [
      'no apiVersion',
      { kind: 'ExecCredential', status: { token: 't' } },
      'its output is not an ExecCredential (apiVersion: Invalid input: expected string, received undefined)',
    ],
    [
      'a JSON array',
      [credential({ token: 't' })],
      'its output is not an ExecCredential (: Invalid input: expected object, received array)',
    ],
    [
      'another apiVersion',
      credential({ token: 't' }, V1BETA1),
      `answered apiVersion ${V1BETA1}, the kubeconfig asks for ${V1}`,
    ],
    [
      'no status',
      { apiVersion: V1, kind: 'ExecCredential' },
      'status has neither a token nor a client certificate and key',
    ],
    ['an empty status', credential({}), 'status has neither a token nor a client certificate and key'],
    [
      'an empty token',
      credential({ token: '' }),
      'status has neither a token nor a client certificate and key',
    ],
    [
      'a certificate without a key',
      credential({ clientCertificateData: 'CERT' }),
      'status has neither a token nor a client certificate and key',
    ],
    [
      'a bad expirationTimestamp',
      credential({ token: 't', expirationTimestamp: 'tomorrow' }),
      'status.expirationTimestamp "tomorrow" is not a time',
    ],
    [
      'a token that is not a string',
      credential({ token: 42 }),
      'its output is not an ExecCredential (status.token: Invalid input: expected string, received number)',
    ],
  ])('refuses %s', async (_case, doc, message) => {
    const command = await answering(doc);
    const err = await failure(runExecCredential(config(command), ENV));
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err.name).toBe('ExecCredentialError');
    expect(err.message).toBe(`exec plugin ${command}: ${message}`);
  });
});
