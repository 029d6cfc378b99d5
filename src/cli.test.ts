/**
 * The command line, end to end without a cluster: inputs from files and standard input, the simulator
 * over real HTTP as the control plane, each output format, each exit code, and no secret value printed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli, runCli, USAGE } from './cli.ts';
import { IMPORT_USAGE } from './import/command.ts';
import { DEFAULT_API_KEY, defaultListeners, type Simulator, startSimulator } from './simulator/index.ts';

const SECRET_VALUE = 'sk-very-secret-value-7f3a';
const LISTENER = defaultListeners()[0]?.id as string;

const agent = (name: string, image = 'registry.example.com/agent:1') => `
apiVersion: deploy.agents.dev/v1alpha1
kind: AgentDeployment
metadata: { name: ${name}, namespace: team-a }
spec:
  source: external_image
  sourceConfig: { listenerId: ${LISTENER}, resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 } }
  sourceRevisionConfig: { imageUri: ${image} }
  secrets: [{ name: TOKEN, valueFrom: { secretKeyRef: { name: agent-token, key: token } } }]
---
apiVersion: v1
kind: Secret
metadata: { name: agent-token, namespace: team-a }
stringData: { token: ${SECRET_VALUE} }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: unrelated, namespace: team-a }
`;

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ revisionStepMs: 10 });
  dir = mkdtempSync(join(tmpdir(), 'agd-plan-'));
});
afterAll(() => sim.close());

async function run(argv: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli({
    argv,
    env: opts.env ?? { CONTROL_PLANE_URL: sim.url, CONTROL_PLANE_API_KEY: DEFAULT_API_KEY },
    stdin: () => opts.stdin ?? '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    isTty: false,
  });
  return { code, stdout, stderr };
}

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('kubectl agd plan, without a cluster', () => {
  it('an input that holds no object: says so and exits 1, unless --allow-empty', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'agd-empty-'));
    const refused = await run(['plan', '--no-cluster', '-f', empty]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the input holds no AgentDeployment or SandboxTemplate: nothing to plan; give --allow-empty if that is expected',
    );
    const others = await run(['plan', '--no-cluster', '-f', '-'], {
      stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n',
    });
    expect(others.code).toBe(1);
    expect(others.stderr).toContain('SandboxTemplate (1 object(s) of other kinds): nothing to plan');
    const allowed = await run(['plan', '--no-cluster', '--allow-empty', '-f', empty]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('Plan: 0 to create');
  });

  it('a new object: create, exit 2, in every format, the secret shown as set', async () => {
    const path = file('new.yaml', agent('fresh'));
    for (const output of ['text', 'markdown', 'json']) {
      const { code, stdout, stderr } = await run(['plan', '--no-cluster', '-f', path, '-o', output]);
      expect(code, stderr).toBe(2);
      expect(stdout).not.toContain(SECRET_VALUE);
      expect(stdout).toContain('(set)');
      expect(stderr).toContain('1 object(s) of other kinds left out');
    }
    const json = JSON.parse((await run(['plan', '--no-cluster', '-f', path, '-o', 'json'])).stdout);
    expect(json.entries[0]).toMatchObject({ action: 'create', createsRevision: true, namespace: 'team-a' });
    expect(sim.requests({ method: 'POST' })).toEqual([]); // a plan never writes
  });

  it('an unchanged deployment: exit 0; a changed image: patch with a new revision, exit 2', async () => {
    const created = await fetch(`${sim.url}/v2/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Api-Key': DEFAULT_API_KEY },
      body: JSON.stringify({
        name: 'steady',
        source: 'external_image',
        source_config: { listener_id: LISTENER, resource_spec: { cpu: 0.5, memory_mb: 512, min_scale: 1 } },
        source_revision_config: { image_uri: 'registry.example.com/agent:1' },
        secrets: [{ name: 'TOKEN', value: SECRET_VALUE }],
      }),
    });
    expect(created.status).toBe(201);
    const same = await run(['plan', '--no-cluster', '-f', '-'], { stdin: agent('steady') });
    expect(same.code, same.stdout).toBe(0);
    const changed = await run(['plan', '--no-cluster', '-f', '-'], {
      stdin: agent('steady', 'registry.example.com/agent:2'),
    });
    expect(changed.code).toBe(2);
    // The controller's key and no cluster: the platform's value is not printed (value-visibility.ts).
    expect(changed.stdout).toContain(
      'source_revision_config.image_uri: "(hidden)" → "registry.example.com/agent:2"',
    );
    const shown = await run(['plan', '--no-cluster', '--show-values', '-f', '-'], {
      stdin: agent('steady', 'registry.example.com/agent:2'),
    });
    expect(shown.stdout).toContain(
      'source_revision_config.image_uri: "registry.example.com/agent:1" → "registry.example.com/agent:2"',
    );
    expect(changed.stdout).toContain('(new revision)');
    expect(changed.stdout).not.toContain(SECRET_VALUE);
  });

  it("in CI with the controller's key, another team's live values never reach the output", async () => {
    // Team A's deployment, with a sidecar's env value; team B's object names it, with another cpu.
    const TEAM_A_VALUE = 'team-a-private-endpoint-4411';
    const created = await fetch(`${sim.url}/v2/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Api-Key': DEFAULT_API_KEY },
      body: JSON.stringify({
        name: 'team-a-agent',
        source: 'external_image',
        source_config: {
          listener_id: LISTENER,
          resource_spec: {
            cpu: 0.5,
            memory_mb: 512,
            min_scale: 1,
            sidecars: [{ name: 'proxy', image: 'proxy:1', env: [{ name: 'UPSTREAM', value: TEAM_A_VALUE }] }],
          },
        },
        source_revision_config: { image_uri: 'registry.example.com/agent:1' },
        secrets: [{ name: 'TOKEN', value: SECRET_VALUE }],
      }),
    });
    expect(created.status).toBe(201);
    const teamB = agent('team-a-agent')
      .replaceAll('namespace: team-a', 'namespace: team-b')
      .replace('cpu: 0.5', 'cpu: 1');
    for (const output of ['text', 'markdown', 'json']) {
      const { code, stdout } = await run(['plan', '--no-cluster', '-f', '-', '-o', output], { stdin: teamB });
      expect(code).toBe(2);
      expect(stdout).toContain('source_config.resource_spec');
      expect(stdout).not.toContain(TEAM_A_VALUE);
      expect(stdout).toContain('(hidden)');
      expect(stdout).toContain('--show-values');
    }
  });

  it.each<[string, (yaml: string) => string, string]>([
    [
      'an enum',
      (y) => y.replace('source: external_image', 'source: ftp'),
      'AgentDeployment.deploy.agents.dev "bad" is invalid: [spec.source: Unsupported value: "ftp": supported values: "repo_host", "external_image"',
    ],
    [
      "a CEL rule's range",
      (y) => y.replace('cpu: 0.5', 'cpu: 9'),
      'spec.sourceConfig.resourceSpec.cpu: Invalid value: 9: spec.sourceConfig.resourceSpec.cpu must be between 0.1 and 8',
    ],
    [
      'a CEL rule across fields',
      (y) => y.replace('imageUri:', 'repoRef: main, imageUri:'),
      'spec.sourceRevisionConfig.repoRef: Forbidden: spec.sourceRevisionConfig.repoRef is only allowed when spec.source is repo_host',
    ],
  ])(
    'offline, the CRD refuses %s: exit 1, naming the field and the rule as the API server does',
    async (_, edit, message) => {
      const { code, stdout } = await run(['plan', '--no-cluster', '-f', '-'], { stdin: edit(agent('bad')) });
      expect(code).toBe(1);
      expect(stdout).toContain('refused (Invalid): ');
      expect(stdout).toContain(message);
    },
  );

  it('without credentials: validated only, exit 3 (not judged), never 0', async () => {
    const { code, stdout } = await run(['plan', '--no-cluster', '-f', '-'], { stdin: agent('x'), env: {} });
    expect(code).toBe(3);
    expect(stdout).toContain('unknown (NoCredentials): validated only');
  });

  it('a Secret only the cluster has: exit 3 (not judged)', async () => {
    const withoutSecret = agent('needs-secret').split('---')[0] as string;
    const { code, stdout } = await run(['plan', '--no-cluster', '-f', '-'], { stdin: withoutSecret });
    expect(code).toBe(3);
    expect(stdout).toContain('unknown (NoCluster)');
  });

  it.each<[string, string[], string]>([
    [
      'no command',
      [],
      'the commands are "plan", "import", "version", "history", "suspend", "resume", "reconcile", "undo", "status"',
    ],
    [
      'another command',
      ['apply'],
      'the commands are "plan", "import", "version", "history", "suspend", "resume", "reconcile", "undo", "status"',
    ],
    ['an unknown flag', ['plan', '--bogus'], "Unknown option '--bogus'"],
    [
      'an unknown format',
      ['plan', '-o', 'yaml', '-f', '-'],
      '--output "yaml": must be one of text, markdown, json',
    ],
    ['no input', ['plan', '--no-cluster'], 'no input: give -f <file|directory|->'],
    [
      'a missing file',
      ['plan', '--no-cluster', '-f', '/nonexistent/x.yaml'],
      '/nonexistent/x.yaml: no such file or directory',
    ],
    [
      '--prune without a selector',
      ['plan', '--prune', '-f', '-'],
      '--prune needs -l/--selector: the label selector of the objects the input holds',
    ],
    [
      'a selector without --prune',
      ['plan', '-l', 'app=x', '-f', '-'],
      '-l/--selector is only used with --prune',
    ],
    [
      '--prune without a cluster',
      ['plan', '--prune', '-l', 'app=x', '--no-cluster', '-f', '-'],
      '--prune reads the cluster for objects not in the input: it cannot be used with --no-cluster',
    ],
  ])('bad usage (%s): one line on stderr, exit 1', async (_, argv, message) => {
    const { code, stderr } = await run(argv);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without a kubeconfig: exit 1, and the message names --no-cluster', async () => {
    const { code, stderr } = await run(['plan', '-f', '-'], {
      stdin: agent('x'),
      env: { KUBECONFIG: join(dir, 'no-such-kubeconfig') },
    });
    expect(code).toBe(1);
    expect(stderr).toContain('no-such-kubeconfig, which does not exist');
    expect(stderr).toContain('--no-cluster');
  });

  it('a cluster it cannot reach: each object a failed read naming --no-cluster, exit 1', async () => {
    const kubeconfig = file(
      'unreachable.kubeconfig',
      yaml.dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const { code, stdout } = await run(['plan', '-f', '-'], {
      stdin: agent('x'),
      env: { KUBECONFIG: kubeconfig },
    });
    expect(code).toBe(1);
    expect(stdout).toContain('unknown (ReadFailed): cannot reach the cluster https://127.0.0.1:1');
    expect(stdout).toContain('plan without it with --no-cluster');
  });

  it('--help prints the usage, exit 0', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, stdout: USAGE });
    expect(await run(['import', '--help'])).toMatchObject({ code: 0, stdout: IMPORT_USAGE });
  });

  it.each<[string, string[], NodeJS.ProcessEnv, string]>([
    [
      'no control plane',
      ['import', '--all'],
      {},
      'no control plane: give --control-plane-url or set CONTROL_PLANE_URL',
    ],
    ['no filter', ['import'], { CONTROL_PLANE_URL: 'http://127.0.0.1:1' }, 'give exactly one of --all'],
    [
      'a URL that is not one',
      ['import', '--all', '--control-plane-url', 'not a url'],
      { CONTROL_PLANE_API_KEY: 'k' },
      'the credentials (--control-plane-url or CONTROL_PLANE_URL, and the key): Invalid URL',
    ],
  ])('import, bad usage (%s): one line on stderr, exit 1', async (_, argv, env, message) => {
    const { code, stdout, stderr } = await run(argv, { env });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('runs as a program (the kubectl plugin entry), with the exit code', async () => {
    // Asynchronously: the simulator answering it lives in this process.
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, 'cli.ts'), 'plan', '--no-cluster', '-f', '-'],
      {
        env: { PATH: process.env.PATH, CONTROL_PLANE_URL: sim.url, CONTROL_PLANE_API_KEY: DEFAULT_API_KEY },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stdin.end(agent('as-a-program'));
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(2);
    expect(stdout).toContain('+ AgentDeployment team-a/as-a-program: create');
  });
});

describe('--show-values-in', () => {
  it.each<[string, string[], string[] | undefined]>([
    ['absent: the plan namespace (planObjects decides)', [], undefined],
    ['a list, spaces trimmed', ['--show-values-in', 'team-a, team-b'], ['team-a', 'team-b']],
    ['empty: no namespace', ['--show-values-in', ''], []],
  ])('%s', (_case, flags, want) => {
    const options = parseCli(['plan', '-f', 'x.yaml', ...flags], {});
    expect(options !== 'help' && options.valuesNamespaces).toEqual(want);
  });
});
