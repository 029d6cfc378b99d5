/**
 * Start-up failures of the real process (`node src/main.ts`, as `make controller` and the image run it):
 * each ends in exactly one line on stderr naming the cause and the fix, and a non-zero exit; never a
 * Node.js stack trace.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO, run } from './packaging-helpers.ts';
import { testKubeconfigPath } from './support/kube.ts';

const dir = mkdtempSync(join(tmpdir(), 'ado-startup-'));

/** A port nothing listens on: bound by the kernel, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The test kubeconfig with its cluster's server or its user replaced. */
function kubeconfigWith(name: string, edit: (config: KubeconfigFile) => void): string {
  const config = yaml.load(readFileSync(testKubeconfigPath(), 'utf8')) as KubeconfigFile;
  edit(config);
  const path = join(dir, name);
  writeFileSync(path, yaml.dump(config));
  return path;
}
interface KubeconfigFile {
  clusters: { cluster: { server: string } }[];
  users: { user: Record<string, unknown> }[];
}

const start = (env: NodeJS.ProcessEnv) =>
  run(process.execPath, ['src/main.ts'], {
    cwd: REPO,
    env: { PATH: process.env.PATH, HOME: dir, HTTP_PORT: '0', POD_NAMESPACE: 'default', ...env },
  });

describe('node src/main.ts refuses to start with one line naming cause and fix', () => {
  it.each<[string, () => Promise<NodeJS.ProcessEnv>, number, string[]]>([
    [
      'a KUBECONFIG that does not exist',
      async () => ({ KUBECONFIG: '/nonexistent/kubeconfig' }),
      1,
      ['KUBECONFIG names /nonexistent/kubeconfig, which does not exist', 'point KUBECONFIG at'],
    ],
    [
      'a kubeconfig that is not YAML',
      async () => {
        const path = join(dir, 'garbage');
        writeFileSync(path, 'clusters: [\n  - {\n');
        return { KUBECONFIG: path };
      },
      1,
      ['cannot load the kubeconfig', 'fix the file KUBECONFIG names'],
    ],
    [
      'an API server nobody listens on',
      async () => {
        const port = await closedPort();
        return {
          KUBECONFIG: kubeconfigWith('closed', (c) => {
            for (const cluster of c.clusters) cluster.cluster.server = `https://127.0.0.1:${port}`;
          }),
        };
      },
      1,
      ['cannot reach the Kubernetes API server at https://127.0.0.1:', 'ECONNREFUSED', 'check that it runs'],
    ],
    [
      'credentials the API server refuses',
      async () => ({
        KUBECONFIG: kubeconfigWith('badtoken', (c) => {
          for (const user of c.users) user.user = { token: 'not-a-valid-token' };
        }),
      }),
      1,
      ['refused the credentials (HTTP 401', 'check the user of the kubeconfig'],
    ],
    [
      'a poll interval of zero',
      async () => ({ KUBECONFIG: testKubeconfigPath(), POLL_INTERVAL: '0s' }),
      2,
      ['configuration error: --poll-interval: "0s" is not a duration above zero', '(see --help)'],
    ],
    [
      'two bad options at once',
      async () => ({ KUBECONFIG: testKubeconfigPath(), WORKERS: '0', LOG_LEVEL: 'loud' }),
      2,
      ['--workers must be above 0', '--log-level must be trace, debug, info, warn or error'],
    ],
  ])('%s', async (_name, env, code, parts) => {
    const result = await start(await env());
    expect(result.code).toBe(code);
    const lines = result.stderr.split('\n').filter((l) => l !== '');
    expect(lines, result.stderr).toHaveLength(1);
    const [line] = lines as [string];
    expect(line.startsWith('agent-deployment-operator: ')).toBe(true);
    for (const part of parts) expect(line).toContain(part);
    // No stack frame, no Node.js internals.
    expect(line).not.toMatch(/node:internal|node:fs|:\d+:\d+\)/);
    expect(result.stdout).toBe('');
  });
});
