/**
 * `kubectl agd` installed as users install kubectl plugins, and run through kubectl's own plugin
 * discovery (the kubectl the suite built), from a directory outside the repository:
 * - the npm package: `npm pack` (prepack compiles the plugin), `npm install -g` of the tarball into a
 *   temporary prefix; an older Node.js gets a message naming the version needed;
 * - the single file of this machine's platform (scripts/single-file.ts, as `make single-file` builds it),
 *   run with no Node.js on PATH, and its krew manifest checked against krew's rules and the archive, then
 *   installed by krew itself (`kubectl krew install --manifest ... --archive ...`, krew built from the Go
 *   module proxy), which checks the archive against the manifest's sha256, and run from krew's bin.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { krewProblems } from '../scripts/single-file/krew.ts';
import { hostPlatform } from '../scripts/single-file/node-binary.ts';
import { buildSingleFiles, type SingleFileResult } from '../scripts/single-file.ts';
import { publishedSettingsOf } from '../src/reconcile/settings.ts';
import { publishSettings, settingsOwner } from '../src/runtime/publish-settings.ts';
import { REPO, type RunResult, run } from './packaging-helpers.ts';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';
import { CONTROLLER_DEPLOYMENT, createControllerDeployment } from './support/harness.ts';
import { createTestNamespace, kubeAccessFromProvided, testKubeconfigPath } from './support/kube.ts';

const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), 'agd-plugin-install-'));
/** Outside the repository: what the plugin reads must come from its install, not from a clone. */
const userDir = join(work, 'user');
const NODE24_DIR = dirname(process.execPath);
const SYSTEM_PATH = '/usr/bin:/bin';

/** `kubectl ARGS` run by the suite's kubectl, finding plugins on `path` only. */
function kubectlWith(path: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return run(join(inject('kubeBinDir'), 'kubectl'), args, {
    cwd: userDir,
    env: { PATH: path, HOME: userDir, KUBECONFIG: join(userDir, 'no-kubeconfig'), ...env },
  });
}

beforeAll(() => {
  mkdirSync(userDir, { recursive: true });
  cpSync(join(REPO, 'examples'), join(userDir, 'examples'), { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The examples' plan without a cluster: validated, no credentials, so exit 3 (not judged). */
function expectExamplesPlanned(result: RunResult): void {
  expect(result.stderr).not.toMatch(/Error|ERR_/);
  const planned = readdirSync(join(REPO, 'examples'))
    .flatMap((name) => yaml.loadAll(readFileSync(join(REPO, 'examples', name), 'utf8')))
    .map((doc) => doc as { kind: string; metadata: { name: string } })
    .filter((doc) => doc.kind === 'AgentDeployment' || doc.kind === 'SandboxTemplate');
  expect(planned.length).toBeGreaterThan(0);
  for (const doc of planned) expect(result.stdout).toContain(`${doc.kind} `);
  for (const doc of planned) expect(result.stdout).toContain(`/${doc.metadata.name}`);
  expect(result.stdout).toContain('Plan: ');
  expect(result.code).toBe(3);
}

describe('the npm package', () => {
  const prefix = join(work, 'prefix');
  const binPath = [join(prefix, 'bin'), NODE24_DIR, SYSTEM_PATH].join(delimiter);
  let packed: { filename: string; size: number; entryCount: number; files: { path: string }[] };

  beforeAll(async () => {
    const env = { ...process.env, PATH: `${NODE24_DIR}${delimiter}${process.env.PATH}` };
    const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO, env });
    expect(pack.code, pack.stderr).toBe(0);
    packed = (
      JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as (typeof packed)[]
    )[0] as typeof packed;
    const install = await run(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        join(work, packed.filename),
      ],
      { cwd: userDir, env },
    );
    expect(install.code, install.stderr).toBe(0);
  }, 300_000);

  it('holds what runs: the bin entries and the compiled plugin, no TypeScript source, test or fixture', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('bin/kubectl-agd.cjs');
    expect(paths).toContain('bin/kubectl_complete-agd.cjs');
    expect(paths).toContain('dist/cli.js');
    expect(paths).toContain('dist/api/kubernetes/core-v1.openapi.json');
    expect(
      paths.filter((p) =>
        /\.ts$|(^|\/)(test|fixtures?)\/|\.test\.|^src\/|^dist\/(main|simulator|localcluster)/.test(p),
      ),
    ).toEqual([]);
    process.stderr.write(
      `npm package: ${packed.filename}, ${packed.size} bytes, ${packed.entryCount} files\n`,
    );
  });

  it('kubectl agd plan --no-cluster -f examples/, found by kubectl on PATH', async () => {
    expectExamplesPlanned(await kubectlWith(binPath, ['agd', 'plan', '--no-cluster', '-f', 'examples/']));
  });

  it('kubectl agd version: the client, the controller and the CRDs of the cluster', async () => {
    const ns = await createTestNamespace('agd-version');
    // A controller of version 9.9.9: its Deployment, and the settings it publishes, owned by it.
    const access = kubeAccessFromProvided();
    await createControllerDeployment(access, ns);
    await publishSettings(
      access,
      ns,
      publishedSettingsOf({ controllerVersion: '9.9.9' }),
      await settingsOwner(access, ns, CONTROLLER_DEPLOYMENT),
    );
    const cluster = { KUBECONFIG: testKubeconfigPath() };

    const result = await kubectlWith(binPath, ['agd', 'version', '--operator-namespace', ns], cluster);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`kubectl-agd ${version} `);
    expect(result.stdout).toContain(
      `controller: 9.9.9 (${ns}/agent-deployment-operator) (differs from this plugin)`,
    );
    expect(result.stdout).toContain(
      'CRD agentdeployments.deploy.agents.dev: serves v1alpha1, stores v1alpha1',
    );

    // A plan against that controller says it is of another version.
    const plan = await kubectlWith(
      binPath,
      ['agd', 'plan', '-n', ns, '--operator-namespace', ns, '-f', 'examples/sandboxtemplate.yaml'],
      cluster,
    );
    expect(plan.stderr).toContain(
      `the controller in the cluster runs version 9.9.9 (${ns}/agent-deployment-operator) and this plugin is ${version}`,
    );
  });

  it('kubectl completes `kubectl agd` through kubectl_complete-agd', async () => {
    const result = await kubectlWith(binPath, ['__complete', 'agd', 'pl']);
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^plan\t/), ':4']),
    );
  });

  // The machine's own Node.js, when it is older (CI's is), must get a message, not a stack trace.
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  const systemNodeMajor = systemNode ? nodeMajor(systemNode) : undefined;
  it.skipIf(!systemNodeMajor || systemNodeMajor >= 24)(
    'an older Node.js: exit 1 and the version needed, before loading anything',
    async () => {
      const result = await kubectlWith(
        [join(prefix, 'bin'), dirname(systemNode as string), SYSTEM_PATH].join(delimiter),
        ['agd', 'version'],
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('kubectl-agd: needs Node.js 24 or newer; this is Node.js ');
    },
  );
});

function nodeMajor(node: string): number {
  return Number(spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.split('.')[0]);
}

describe('the single file', () => {
  const platform = hostPlatform();
  const out = join(work, 'single-file');
  const unpacked = join(work, 'unpacked');
  let built: SingleFileResult;

  beforeAll(async () => {
    if (!platform) return;
    built = await buildSingleFiles([platform], out, 'https://example.invalid/releases/{{version}}');
    mkdirSync(unpacked);
    const untar = await run('tar', ['-xzf', built.archives[0]?.path as string, '-C', unpacked]);
    expect(untar.code, untar.stderr).toBe(0);
  }, 300_000);

  it.skipIf(!platform)('runs plan and version through kubectl with no Node.js on PATH', async () => {
    // kubectl is run by its absolute path; PATH holds the plugin and nothing else.
    expect(readdirSync(unpacked).sort()).toEqual(['kubectl-agd', 'kubectl_complete-agd']);
    expectExamplesPlanned(await kubectlWith(unpacked, ['agd', 'plan', '--no-cluster', '-f', 'examples/']));
    const versionOut = await kubectlWith(unpacked, ['agd', 'version', '--no-cluster']);
    expect(versionOut.stdout).toBe(
      `kubectl-agd ${version} (speaks deploy.agents.dev/v1alpha1, Node.js ${process.versions.node})\n`,
    );
    const completion = await kubectlWith(unpacked, ['__complete', 'agd', 'ver']);
    expect(completion.stdout).toMatch(/^version\t/m);
  });

  it.skipIf(!platform)(
    "has a krew manifest that krew's rules accept, with the built archive's sha256",
    () => {
      const manifest = readFileSync(join(out, 'agd.yaml'), 'utf8');
      expect(krewProblems(manifest, 'agd')).toEqual([]);
      const spec = (
        yaml.load(manifest) as { spec: { version: string; platforms: Record<string, unknown>[] } }
      ).spec;
      expect(spec.version).toBe(`v${version}`);
      const archive = readFileSync(built.archives[0]?.path as string);
      expect(spec.platforms).toEqual([
        {
          selector: { matchLabels: { os: platform?.os, arch: platform?.arch } },
          uri: `https://example.invalid/releases/v${version}/kubectl-agd_${platform?.os}_${platform?.arch}.tar.gz`,
          sha256: createHash('sha256').update(archive).digest('hex'),
          bin: 'kubectl-agd',
          files: [{ from: 'kubectl-agd', to: '.' }],
        },
      ]);
      process.stderr.write(`single file: ${built.archives[0]?.file}, ${archive.length} bytes\n`);
    },
  );

  it.skipIf(!platform)(
    'krew installs it from the manifest and the archive, checking the sha256, and kubectl runs it',
    async () => {
      const krew = await goTool('krew-binary.sh');
      const tools = join(work, 'krew-tools');
      mkdirSync(tools);
      symlinkSync(krew, join(tools, 'kubectl-krew'));
      const krewPath = [tools, SYSTEM_PATH].join(delimiter);
      const manifest = join(out, 'agd.yaml');
      const archive = built.archives[0]?.path as string;
      const install = (root: string, file: string) =>
        kubectlWith(krewPath, ['krew', 'install', `--manifest=${manifest}`, `--archive=${file}`], {
          KREW_ROOT: root,
        });

      // An archive with one byte changed is refused: krew checks it against the manifest's sha256.
      const bytes = readFileSync(archive);
      bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 0xff;
      const tampered = join(work, 'tampered.tar.gz');
      writeFileSync(tampered, bytes);
      const refused = await install(join(work, 'krew-refused'), tampered);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/checksum does not match/);

      const root = join(work, 'krew-root');
      const installed = await install(root, archive);
      expect(installed.code, installed.stderr).toBe(0);
      const versionOut = await kubectlWith(join(root, 'bin'), ['agd', 'version', '--no-cluster']);
      expect(versionOut.stdout).toBe(
        `kubectl-agd ${version} (speaks deploy.agents.dev/v1alpha1, Node.js ${process.versions.node})\n`,
      );
    },
    FIRST_BUILD_TIMEOUT_MS,
  );
});
