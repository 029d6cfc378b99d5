/**
 * The container image's contents without Docker: scripts/image-contents.sh (the script the Dockerfile
 * runs) assembles the app into a temp dir; the controller must start from there with production
 * dependencies only, serve /readyz against the run's API server, and stop cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, run } from './packaging-helpers.ts';
import { createTestNamespace, testKubeconfigPath } from './support/kube.ts';

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const app = join(mkdtempSync(join(tmpdir(), 'ado-image-')), 'app');
let controller: ChildProcess | undefined;

beforeAll(async () => {
  const result = await run(join(REPO, 'scripts/image-contents.sh'), [REPO, app]);
  expect(result.code, result.stderr).toBe(0);
}, 300_000);

afterAll(() => {
  if (controller?.exitCode === null) controller.kill('SIGKILL');
});

describe('image contents (scripts/image-contents.sh)', () => {
  it('hold the production dependencies and no development ones', () => {
    for (const name of Object.keys(pkg.dependencies)) {
      expect(existsSync(join(app, 'node_modules', name, 'package.json')), name).toBe(true);
    }
    for (const name of Object.keys(pkg.devDependencies).filter((n) => !n.startsWith('@types/'))) {
      expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
    }
  });

  it('hold the compiled controller, without sources, tests, the simulator or the local cluster launcher', async () => {
    const listed = await run(
      'find',
      ['.', '-path', './node_modules', '-prune', '-o', '-type', 'f', '-print'],
      {
        cwd: app,
      },
    );
    const files = listed.stdout.trim().split('\n');
    expect(files).toContain('./dist/main.js');
    expect(files).toContain('./dist/cli.js');
    expect(files).toContain('./dist/api/kubernetes/core-v1.openapi.json');
    expect(files.filter((f) => f.endsWith('.ts') || /^\.\/dist\/(simulator|localcluster)\//.test(f))).toEqual(
      [],
    );
  });

  it('run node dist/main.js --help from the assembled directory', async () => {
    const result = await run(process.execPath, ['dist/main.js', '--help'], { cwd: app });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: node src/main.ts');
  });

  it('serve /readyz against the API server and exit 0 on SIGTERM', async () => {
    const ns = await createTestNamespace('image-run');
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        KUBECONFIG: testKubeconfigPath(),
        NODE_ENV: 'production',
        WATCH_NAMESPACES: ns,
        POD_NAMESPACE: ns,
        POD_NAME: 'image-test',
        HTTP_PORT: '0',
        CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    controller = child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (const line of buffered.split('\n')) {
          const match = /"port":(\d+).*health and metrics endpoints listening/.exec(line);
          if (match) resolve(Number(match[1]));
        }
      });
      void exited.then((code) => reject(new Error(`controller exited with ${code} before listening`)));
    });
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i += 1) {
      status = (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  const instructions = dockerfile
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .map((l) => l.trim());

  it('builds the app with scripts/image-contents.sh on Node.js 24', () => {
    expect(instructions).toContain('RUN scripts/image-contents.sh /build /app');
    const from = instructions.filter((l) => l.startsWith('FROM '));
    expect(from).toHaveLength(2);
    expect(from[0]).toMatch(/^FROM node:24-bookworm-slim@sha256:[0-9a-f]{64} AS app$/);
    expect(from[1]).toMatch(/^FROM gcr\.io\/distroless\/nodejs24-debian12:nonroot@sha256:[0-9a-f]{64}$/);
  });

  it('is built by make image with the tag the chart and manifests/ deploy', async () => {
    const chart = yaml.load(
      readFileSync(join(REPO, 'helm/agent-deployment-operator/Chart.yaml'), 'utf8'),
    ) as {
      appVersion: string;
    };
    const kustomization = yaml.load(readFileSync(join(REPO, 'manifests/kustomization.yaml'), 'utf8')) as {
      images: { name: string; newTag: string }[];
    };
    const dryRun = await run('make', ['--no-print-directory', '-n', 'image'], { cwd: REPO });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const image = `agent-deployment-operator:${chart.appVersion}`;
    expect(dryRun.stdout.trim()).toBe(`docker build -t ${image} .`);
    expect(kustomization.images).toEqual([{ name: 'agent-deployment-operator', newTag: chart.appVersion }]);
    // The install page shows the same tag being loaded into a cluster, and so does the README's quick install.
    const install = readFileSync(join(REPO, 'docs/install.md'), 'utf8');
    expect(install).toContain(`kind load docker-image ${image}`);
    expect(install).toContain(`docker save ${image} | `);
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain(`kind load docker-image ${image}`);
  });

  it('runs as a numeric non-root user with node as the entrypoint and no HEALTHCHECK', () => {
    const user = instructions.filter((l) => l.startsWith('USER '));
    expect(user).toEqual(['USER 65532:65532']);
    expect(instructions.some((l) => l.startsWith('HEALTHCHECK'))).toBe(false);
    expect(instructions.at(-1)).toBe(
      'ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=1", "--memory-saver-mode", "--max-opt=1", "--liftoff-only", "dist/main.js"]',
    );
  });

  it('copies only files the .dockerignore lets into the build context', () => {
    const ignore = readFileSync(join(REPO, '.dockerignore'), 'utf8');
    const copied = instructions
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    for (const path of copied) {
      const allowed = path === 'src' ? '!src/' : `!${path}`;
      expect(ignore.split('\n'), path).toContain(allowed);
    }
  });
});
