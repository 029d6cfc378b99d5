/**
 * The kubeconfig file format as kubectl reads it: files parsed (every field this client cannot honour is
 * refused later by name, in target.ts, instead of being ignored) and merged as kubectl merges the
 * KUBECONFIG list (the first file to set current-context, or to name a cluster, user or context, wins),
 * relative paths resolved against the file that names them. What a context resolves to is target.ts's.
 *
 * Our own loader rather than @kubernetes/client-node's KubeConfig: that class imports the library's whole
 * generated API, about 60 MiB of resident memory in a controller that uses none of it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type * as JsYaml from 'js-yaml';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/**
 * js-yaml, loaded when a kubeconfig file is first read: a controller in a pod reads its service account
 * and never loads it (src/main-modules.test.ts lists what a controller loads).
 */
const parseYaml = (text: string): unknown => (require('js-yaml') as typeof JsYaml).load(text);

/** A kubeconfig that cannot be used, with the file and the field that say why. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

const ExecEnv = z.object({ name: z.string(), value: z.string() });

const ExecConfig = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(ExecEnv).nullish(),
  apiVersion: z.string().min(1),
  installHint: z.string().nullish(),
  provideClusterInfo: z.boolean().nullish(),
  interactiveMode: z.string().nullish(),
});
export type ExecConfig = z.infer<typeof ExecConfig>;

const Cluster = z.looseObject({
  server: z.string().min(1),
  'certificate-authority': z.string().nullish(),
  'certificate-authority-data': z.string().nullish(),
  'insecure-skip-tls-verify': z.boolean().nullish(),
  'tls-server-name': z.string().nullish(),
  'proxy-url': z.string().nullish(),
});

const User = z.looseObject({
  token: z.string().nullish(),
  tokenFile: z.string().nullish(),
  'client-certificate': z.string().nullish(),
  'client-certificate-data': z.string().nullish(),
  'client-key': z.string().nullish(),
  'client-key-data': z.string().nullish(),
  username: z.string().nullish(),
  password: z.string().nullish(),
  as: z.string().nullish(),
  'as-uid': z.string().nullish(),
  'as-groups': z.array(z.string()).nullish(),
  'as-user-extra': z.record(z.string(), z.array(z.string())).nullish(),
  'auth-provider': z.unknown().optional(),
  exec: ExecConfig.nullish(),
});

const Context = z.looseObject({
  cluster: z.string().min(1),
  user: z.string().nullish(),
  namespace: z.string().nullish(),
});

const KubeconfigFile = z.looseObject({
  'current-context': z.string().nullish(),
  clusters: z.array(z.looseObject({ name: z.string().min(1), cluster: Cluster })).nullish(),
  users: z.array(z.looseObject({ name: z.string().min(1), user: User.nullish() })).nullish(),
  contexts: z.array(z.looseObject({ name: z.string().min(1), context: Context })).nullish(),
});

export type ClusterEntry = z.infer<typeof Cluster>;
type UserEntry = z.infer<typeof User>;
type ContextEntry = z.infer<typeof Context>;

/** One kubeconfig, or several merged: its entries by name. */
export interface LoadedFile {
  path: string;
  currentContext: string | undefined;
  clusters: Map<string, ClusterEntry>;
  users: Map<string, UserEntry>;
  contexts: Map<string, ContextEntry>;
}

/** Parses one kubeconfig file's text; relative file paths in it resolve against `path`'s directory. */
export function parseKubeconfig(text: string, path: string): LoadedFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new KubeconfigError(`${path}: not YAML (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = KubeconfigFile.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? pathLabel(raw, issue.path) : '';
    throw new KubeconfigError(`${path}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const base = dirname(resolve(path));
  const file = (value: string | null | undefined) =>
    value ? (isAbsolute(value) ? value : join(base, value)) : undefined;
  // kubectl's rule: a command with a path separator is a file relative to the kubeconfig; a bare name
  // is looked up on PATH when the plugin runs.
  const command = (exec: ExecConfig): ExecConfig =>
    exec.command.includes(sep) && !isAbsolute(exec.command)
      ? { ...exec, command: join(base, exec.command) }
      : exec;
  const byName = <T>(entries: ReadonlyArray<{ name: string; value: T }>) => {
    const map = new Map<string, T>();
    for (const { name, value } of entries) if (!map.has(name)) map.set(name, value);
    return map;
  };
  const clusters = byName(
    (parsed.data.clusters ?? []).map((e) => ({
      name: e.name,
      value: { ...e.cluster, 'certificate-authority': file(e.cluster['certificate-authority']) },
    })),
  );
  const users = byName(
    (parsed.data.users ?? []).map((e) => ({
      name: e.name,
      value: {
        ...(e.user ?? {}),
        'client-certificate': file(e.user?.['client-certificate']),
        'client-key': file(e.user?.['client-key']),
        tokenFile: file(e.user?.tokenFile),
        exec: e.user?.exec ? command(e.user.exec) : e.user?.exec,
      },
    })),
  );
  return {
    path,
    currentContext: parsed.data['current-context'] || undefined,
    clusters,
    users,
    contexts: byName((parsed.data.contexts ?? []).map((e) => ({ name: e.name, value: e.context }))),
  };
}

/** `users[name=dev].user.token` for an issue's path, so a message points at the entry, not an index. */
function pathLabel(raw: unknown, path: readonly PropertyKey[]): string {
  let node: unknown = raw;
  let label = '';
  for (const part of path) {
    const next = (node as Record<PropertyKey, unknown> | undefined)?.[part as string];
    if (typeof part === 'number') {
      const name = (next as { name?: unknown } | undefined)?.name;
      label += typeof name === 'string' ? `[name=${name}]` : `[${part}]`;
    } else {
      label += label ? `.${String(part)}` : String(part);
    }
    node = next;
  }
  return label || '(top level)';
}

/** kubectl's merge of several files: the first to set a value wins. */
export function mergeKubeconfigs(files: readonly LoadedFile[]): LoadedFile {
  const merged: LoadedFile = {
    path: files.map((f) => f.path).join(':'),
    currentContext: files.find((f) => f.currentContext)?.currentContext,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const f of files) {
    for (const kind of ['clusters', 'users', 'contexts'] as const) {
      for (const [name, entry] of f[kind] as Map<string, unknown>) {
        const into = merged[kind] as Map<string, unknown>;
        if (!into.has(name)) into.set(name, entry);
      }
    }
  }
  return merged;
}

/** The files a KUBECONFIG value names (a colon-separated list; empty entries skipped). */
export function kubeconfigPaths(env: NodeJS.ProcessEnv): string[] {
  return (env.KUBECONFIG ?? '').split(':').filter((p) => p !== '');
}

/**
 * Reads and merges kubeconfig files. A file that cannot be read is an error naming it; with
 * `skipMissing` (a KUBECONFIG list, read as kubectl reads it) a file that does not exist is skipped,
 * and only none existing is an error.
 */
export function loadKubeconfigFiles(
  paths: readonly string[],
  options: { skipMissing?: boolean } = {},
): LoadedFile {
  const files: LoadedFile[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (options.skipMissing && code === 'ENOENT') continue;
      throw new KubeconfigError(`${path}: cannot read (${code ?? err})`);
    }
    files.push(parseKubeconfig(text, path));
  }
  if (files.length === 0 && paths.length > 0) {
    throw new KubeconfigError(`KUBECONFIG: none of its files exists (${paths.join(', ')})`);
  }
  return mergeKubeconfigs(files);
}
