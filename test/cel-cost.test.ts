/**
 * What the CRDs' CEL rules cost the API server, as its own code computes it (k8s.io/apiextensions-apiserver,
 * run by scripts/cel-cost on crds/*.yaml): the estimate it makes when a CRD is created (each rule's worst
 * case times how many times its place can occur; it refuses a CRD over 10,000,000 for one rule or
 * 100,000,000 in all), and the runtime cost of a status write, where every rule runs again on an unchanged
 * spec. The bounds are this project's, just above today's figures: a change that makes the rules dearer
 * fails here, and the figures it prints say by how much.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENT, API_VERSION } from '../src/api/group.ts';
import { REPO } from './packaging-helpers.ts';
import { FIRST_BUILD_TIMEOUT_MS, goTool } from './support/go-tools.ts';

const run = promisify(execFile);

interface CrdCost {
  crd: string;
  rules: { path: string; rule: string; cost: number }[];
  total: number;
  ruleLimit: number;
  totalLimit: number;
}

/** The estimated total of each CRD's rules, at most. */
const TOTAL_BUDGET: Record<string, number> = {
  'agentdeployments.deploy.agents.dev': 12_100_000,
  'sandboxtemplates.deploy.agents.dev': 450_000,
  'deploymentwindowpolicies.deploy.agents.dev': 4_000,
};

/** Runtime cost units the rules spend on a status write of a converged object, at most. */
const STATUS_WRITE_BUDGET = 165;

/** A converged external_image object, as the benchmark's are (bench/objects.ts) with the status it reaches. */
const CONVERGED = {
  apiVersion: API_VERSION,
  kind: AGENT_DEPLOYMENT.kind,
  metadata: {
    name: 'agent-00001',
    namespace: 'bench',
    generation: 1,
    finalizers: ['deploy.agents.dev/finalizer'],
  },
  spec: {
    source: 'external_image',
    sourceConfig: {
      listenerId: '9b1c1a5e-1111-4222-8333-444455556666',
      resourceSpec: { cpu: 0.5, memoryMb: 512, minScale: 1 },
    },
    sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
    deletionPolicy: 'Delete',
    progressDeadline: '30m',
  },
  status: {
    observedGeneration: 1,
    deploymentId: '5f0c1a5e-1111-4222-8333-444455556666',
    latestRevisionId: '6f0c1a5e-1111-4222-8333-444455556666',
    activeRevisionId: '6f0c1a5e-1111-4222-8333-444455556666',
    revisionStatus: 'DEPLOYED',
    deploymentStatus: 'READY',
    url: 'http://agent-00001.example.com',
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 1,
        lastTransitionTime: '2026-11-28T00:00:00Z',
        reason: 'Deployed',
        message: 'The latest revision is deployed',
      },
    ],
  },
};

const CRD_FILES = [
  join(REPO, 'crds', 'deploy.agents.dev_agentdeployments.yaml'),
  join(REPO, 'crds', 'deploy.agents.dev_sandboxtemplates.yaml'),
  join(REPO, 'crds', 'deploy.agents.dev_deploymentwindowpolicies.yaml'),
];

let celCost: string;
beforeAll(async () => {
  celCost = await goTool('cel-cost-binary.sh');
}, FIRST_BUILD_TIMEOUT_MS);

describe('the CEL cost the API server estimates for the CRDs', () => {
  let costs: CrdCost[];
  beforeAll(async () => {
    const { stdout } = await run(celCost, CRD_FILES, { maxBuffer: 16 * 1024 * 1024 });
    costs = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as CrdCost);
  });

  it('is within the budget of each CRD, far under the limits the API server enforces', () => {
    expect(costs.map((c) => c.crd).sort()).toEqual(Object.keys(TOTAL_BUDGET).sort());
    for (const c of costs) {
      const dearest = [...c.rules].sort((a, b) => b.cost - a.cost).slice(0, 3);
      expect(c.total, `${c.crd}: ${c.total}; dearest rules: ${JSON.stringify(dearest)}`).toBeLessThanOrEqual(
        TOTAL_BUDGET[c.crd] ?? 0,
      );
      expect(c.total).toBeLessThan(c.totalLimit / 5);
      for (const r of c.rules) expect(r.cost, `${r.path}: ${r.rule}`).toBeLessThan(c.ruleLimit);
    }
  });
});

describe('the CEL cost of a status write', () => {
  it('is within the budget on a converged object (every rule runs again on its unchanged spec)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cel-cost-')), 'converged.json');
    writeFileSync(file, JSON.stringify(CONVERGED));
    const { stdout } = await run(celCost, ['-update', CRD_FILES[0] as string, file]);
    const measured = JSON.parse(stdout) as { runtimeCost: number; allocsPerOp: number; nsPerOp: number };
    expect(measured.runtimeCost, JSON.stringify(measured)).toBeLessThanOrEqual(STATUS_WRITE_BUDGET);
  });
});
