/**
 * A kubeconfig exec credential plugin (client.authentication.k8s.io ExecCredential), run as kubectl
 * runs it: the command with its args and env, KUBERNETES_EXEC_INFO describing the request, stdin
 * closed (never interactive: a controller has no terminal). Its answer is kept until its
 * expirationTimestamp, or until the API server refuses it.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { ExecConfig } from './kubeconfig.ts';

export class ExecCredentialError extends Error {
  override name = 'ExecCredentialError';
}

const ExecCredential = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('ExecCredential'),
  status: z
    .looseObject({
      token: z.string().nullish(),
      clientCertificateData: z.string().nullish(),
      clientKeyData: z.string().nullish(),
      expirationTimestamp: z.string().nullish(),
    })
    .nullish(),
});

export interface ExecCredentialResult {
  token?: string;
  /** PEM, when the plugin answers with a client certificate instead of (or with) a token. */
  clientCertificate?: string;
  clientKey?: string;
  /** ms since the epoch; undefined: valid until refused. */
  expiresAt?: number;
}

/** A plugin that does not answer within this is killed. */
const EXEC_TIMEOUT_MS = 30_000;
/** Bytes of plugin output read at most. */
const MAX_OUTPUT = 1024 * 1024;

/** `cluster`: what a plugin with provideClusterInfo is told of the cluster (spec.cluster). */
export async function runExecCredential(
  exec: ExecConfig,
  env: NodeJS.ProcessEnv = process.env,
  cluster?: Record<string, unknown>,
): Promise<ExecCredentialResult> {
  const spec = { interactive: false, ...(cluster ? { cluster } : {}) };
  const info = { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec };
  const childEnv: NodeJS.ProcessEnv = { ...env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env ?? []) childEnv[name] = value;
  const output = await new Promise<string>((done, fail) => {
    const child = spawn(exec.command, exec.args ?? [], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: EXEC_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 4096) stderr += d;
    });
    child.on('error', (err) => {
      const hint = exec.installHint ? ` (${exec.installHint.trim()})` : '';
      fail(new ExecCredentialError(`exec plugin ${exec.command}: ${err.message}${hint}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) return done(stdout);
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      fail(new ExecCredentialError(`exec plugin ${exec.command}: ${why}: ${stderr.trim().slice(0, 500)}`));
    });
  });
  let json: unknown;
  try {
    json = JSON.parse(output);
  } catch {
    throw new ExecCredentialError(`exec plugin ${exec.command}: its output is not JSON`);
  }
  const parsed = ExecCredential.safeParse(json);
  if (!parsed.success) {
    throw new ExecCredentialError(
      `exec plugin ${exec.command}: its output is not an ExecCredential (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`,
    );
  }
  if (parsed.data.apiVersion !== exec.apiVersion) {
    throw new ExecCredentialError(
      `exec plugin ${exec.command}: answered apiVersion ${parsed.data.apiVersion}, the kubeconfig asks for ${exec.apiVersion}`,
    );
  }
  const status = parsed.data.status ?? {};
  if (!status.token && !(status.clientCertificateData && status.clientKeyData)) {
    throw new ExecCredentialError(
      `exec plugin ${exec.command}: status has neither a token nor a client certificate and key`,
    );
  }
  const expiresAt = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : undefined;
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) {
    throw new ExecCredentialError(
      `exec plugin ${exec.command}: status.expirationTimestamp "${status.expirationTimestamp}" is not a time`,
    );
  }
  return {
    ...(status.token ? { token: status.token } : {}),
    ...(status.clientCertificateData && status.clientKeyData
      ? { clientCertificate: status.clientCertificateData, clientKey: status.clientKeyData }
      : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}
