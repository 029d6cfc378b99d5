/** `kubectl agd import` without a control plane: the filter, bad input, and all-or-nothing files. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../controlplane/schemas.ts';
import type { ClusterCheck } from './cluster.ts';
import { type ImportOptions, parseImportArgs, runImport } from './command.ts';
import { importDeployment } from './manifests.ts';
import { objectYaml } from './output.ts';

const deployment = (name: string, id: string, change: Partial<Deployment> = {}): Deployment => ({
  id,
  name,
  source: 'external_image',
  source_config: { listener_id: 'l-1', resource_spec: { cpu: 1, cpu_limit: 2 } },
  source_revision_config: { image_uri: `reg/${name}:1` },
  secrets: [{ name: 'TOKEN', value: '********' }],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r-1',
  active_revision_id: 'r-1',
  ...change,
});

const ALPHA = deployment('alpha', 'a0000000-0000-4000-8000-000000000001');
const BETA = deployment('beta', 'b0000000-0000-4000-8000-000000000002', {
  secrets: [{ name: 'KEY', value: 'revealed-value' }],
});
const BROKEN = deployment('broken', 'c0000000-0000-4000-8000-000000000003', {
  source_config: { resource_spec: { orchestrator_cpu: 1 } },
});

async function run(argv: string[], listed: Deployment[] | Error, check?: ClusterCheck) {
  const options = parseImportArgs(argv) as ImportOptions;
  let stdout = '';
  let stderr = '';
  const client = {
    listAllDeployments: async (q: { nameContains?: string; deploymentIds?: readonly string[] }) => {
      if (listed instanceof Error) throw listed;
      return listed.filter(
        (d) =>
          (!q.nameContains || d.name.includes(q.nameContains)) &&
          (!q.deploymentIds || q.deploymentIds.includes(d.id)),
      );
    },
  };
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t) };
  const code = await runImport(options, { baseUrl: 'http://cp.test', apiKey: 'k' }, client, io, check);
  return { code, stdout, stderr };
}

describe('parseImportArgs', () => {
  it.each<[string, string[], RegExp]>([
    ['no filter', [], /exactly one of --all, --name-contains/],
    ['two filters', ['--all', '--id', 'x'], /exactly one of/],
    ['an empty substring', ['--name-contains', ''], /must not be empty/],
    ['an unknown flag', ['--bogus'], /Unknown option/],
  ])('%s', (_, argv, message) => {
    expect(() => parseImportArgs(argv)).toThrow(message);
  });

  it('ids repeat, the namespace defaults', () => {
    expect(parseImportArgs(['--id', 'a', '--id', 'b', '--id', 'a'])).toMatchObject({
      filter: { ids: ['a', 'b'] },
      namespace: 'default',
    });
  });
});

describe('runImport', () => {
  it('writes every match to standard output as YAML: Secret, then the AgentDeployment', async () => {
    const { code, stdout, stderr } = await run(['--all', '-n', 'team-a'], [BETA, ALPHA]);
    expect(code).toBe(0);
    const docs = yaml.loadAll(stdout) as { kind: string; metadata: { name: string; namespace: string } }[];
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Secret/alpha-secrets',
      'AgentDeployment/alpha',
      'Secret/beta-secrets',
      'AgentDeployment/beta',
    ]);
    expect(docs.every((d) => d.metadata.namespace === 'team-a')).toBe(true);
    expect(stdout).toContain('# The platform masks some of these values');
    expect(stderr).toMatch(/warning: the output holds secret values the platform revealed \(beta\)/);
    expect(stderr).not.toContain('revealed-value');
  });

  it.each<[string, string[], Deployment[] | Error, RegExp]>([
    [
      'a substring that matches nothing',
      ['--name-contains', 'zeta'],
      [ALPHA],
      /no deployment whose name contains "zeta"/,
    ],
    ['an id not found', ['--id', ALPHA.id, '--id', 'nope'], [ALPHA], /no deployment with id nope/],
    [
      'credentials that cannot list',
      ['--all'],
      new Error('401 Unauthorized'),
      /cannot list deployments at http:\/\/cp.test: 401/,
    ],
  ])('bad input: %s, exit 1 and nothing written', async (_, argv, listed, message) => {
    const { code, stdout, stderr } = await run(argv, listed);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('standard output: an object the operator cannot express is named and left out, exit 1', async () => {
    const { code, stdout, stderr } = await run(['--all'], [ALPHA, BROKEN]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/deployment c0000000-.* \(broken\): not written.*orchestrator_cpu/);
    expect(stdout).toContain('name: alpha');
    expect(stdout).not.toContain('broken');
  });

  it('--output-dir: one file per object, all or nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agd-import-'));
    const failed = await run(['--all', '--output-dir', dir], [ALPHA, BROKEN]);
    expect(failed.code).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(failed.stderr).toMatch(/nothing written to/);

    const ok = await run(['--all', '--output-dir', dir], [ALPHA, BETA]);
    expect(ok.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['alpha.yaml', 'beta.yaml']);
    const file = join(dir, 'alpha.yaml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((yaml.loadAll(readFileSync(file, 'utf8')) as { kind: string }[]).map((d) => d.kind)).toEqual([
      'Secret',
      'AgentDeployment',
    ]);
    expect(existsSync(join(dir, 'broken.yaml'))).toBe(false);
  });

  it('the cluster check: a refusal leaves the object out, a note is said, a failed check writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agd-import-'));
    const refuses: ClusterCheck = async (obj) =>
      obj.metadata.name === 'beta'
        ? { refusal: 'the API server refuses it: spec.source is immutable', note: 'beta exists already' }
        : {};
    const refused = await run(['--all', '--output-dir', dir], [ALPHA, BETA], refuses);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(beta\): beta exists already/);
    expect(refused.stderr).toMatch(/\(beta\): not written.*spec\.source is immutable/);
    expect(readdirSync(dir)).toEqual([]);

    const unreachable: ClusterCheck = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    const failed = await run(['--all'], [ALPHA], unreachable);
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    expect(failed.stderr).toMatch(
      /cannot check deployment .* with the cluster \(connect ECONNREFUSED\).*--no-cluster/,
    );
  });

  it('two deployments that would be the same object: both named, neither written', async () => {
    const other = deployment('Alpha', 'd0000000-0000-4000-8000-000000000004');
    const { code, stderr } = await run(['--all'], [ALPHA, other]);
    expect(code).toBe(1);
    expect(stderr.match(/would all be the object alpha/g)).toHaveLength(2);
  });

  it('a hostile name: refused, never in the YAML as text, cleaned on the terminal', async () => {
    const binding =
      '{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: pwned}, ' +
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}}';
    const hostile = deployment(
      `x\n---\n${binding}\n---\n#\u001b[2J\u009b1A`,
      'e0000000-0000-4000-8000-000000000005',
      {
        secrets: [{ name: 'T\n---\nkind: Pwned\n#', value: '********' }],
      },
    );
    const { code, stdout, stderr } = await run(['--all'], [ALPHA, hostile]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/e0000000-.*: not written.*spec\.name: must have no control/);
    // One line per message, and nothing a terminal acts on.
    expect(stderr.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    for (const line of stderr.trimEnd().split('\n')) expect(line).toMatch(/^kubectl-agd import: /);
    const docs = yaml.loadAll(stdout) as { kind: string; metadata: { name: string } }[];
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Secret/alpha-secrets',
      'AgentDeployment/alpha',
    ]);
  });
});

describe('objectYaml', () => {
  it('platform strings go through the YAML library, never into a comment', () => {
    // Built past the checks on purpose: even a name they would refuse stays a quoted value.
    const odd = deployment('x\n---\nkind: Pwned\n#', 'f0000000-0000-4000-8000-000000000006', {
      secrets: [{ name: 'T\n---\nkind: Pwned\n#', value: '********' }],
    });
    const text = objectYaml(importDeployment(odd, 'team-a'));
    expect(text).not.toMatch(/^kind: Pwned/m);
    const docs = yaml.loadAll(text) as { kind: string; spec?: { name?: string } }[];
    expect(docs.map((d) => d.kind)).toEqual(['Secret', 'AgentDeployment']);
    expect(docs[1]?.spec?.name).toBe(odd.name);
  });
});
