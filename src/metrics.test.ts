import { describe, expect, it } from 'vitest';
import type { Condition } from './api/common.ts';
import { type ObservedObject, OperatorMetrics } from './metrics.ts';

const condition = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const object = (namespace: string, conditions: Condition[], observedGeneration = 1): ObservedObject => ({
  metadata: { namespace, generation: 1 },
  status: { observedGeneration, conditions },
});

describe('OperatorMetrics', () => {
  it('counts objects by kind, namespace, state and reason: one series per combination, not per object', async () => {
    const metrics = new OperatorMetrics();
    const ready = [condition('Ready', 'True', 'Succeeded')];
    const rejected = [condition('Ready', 'False', 'Rejected'), condition('Stalled', 'True', 'Rejected')];
    metrics.watchObjects(
      'AgentDeployment',
      () => [
        object('a', ready),
        object('a', ready),
        object('a', rejected),
        object('b', ready),
        object('b', [], 0),
      ],
      () => [0],
    );
    metrics.watchObjects(
      'SandboxTemplate',
      () => [object('a', ready)],
      () => [0],
    );
    const text = await metrics.registry.metrics();
    const series = text.split('\n').filter((l) => l.startsWith('agent_operator_objects_by_state{'));
    expect(series.sort()).toEqual(
      [
        'agent_operator_objects_by_state{kind="AgentDeployment",namespace="a",state="ready",reason="Succeeded"} 2',
        'agent_operator_objects_by_state{kind="AgentDeployment",namespace="a",state="stalled",reason="Rejected"} 1',
        'agent_operator_objects_by_state{kind="AgentDeployment",namespace="b",state="ready",reason="Succeeded"} 1',
        'agent_operator_objects_by_state{kind="AgentDeployment",namespace="b",state="reconciling",reason="LatestGenerationNotObserved"} 1',
        'agent_operator_objects_by_state{kind="SandboxTemplate",namespace="a",state="ready",reason="Succeeded"} 1',
      ].sort(),
    );
  });

  it('walks the objects again only once what they are counted from changed', async () => {
    const metrics = new OperatorMetrics();
    const ready = [condition('Ready', 'True', 'Succeeded')];
    let cached = [object('a', ready)];
    let changes = 0;
    let walks = 0;
    metrics.watchObjects(
      'AgentDeployment',
      () => {
        walks++;
        return cached;
      },
      () => [changes],
    );
    const readyCount = async () =>
      (await metrics.registry.metrics())
        .split('\n')
        .find((l) =>
          l.startsWith('agent_operator_objects{kind="AgentDeployment",condition="Ready",status="True"}'),
        );
    expect(await readyCount()).toMatch(/ 1$/);
    expect(walks).toBe(2); // by condition, by state
    expect(await readyCount()).toMatch(/ 1$/);
    expect(walks).toBe(2);
    cached = [object('a', ready), object('b', ready)];
    changes++;
    expect(await readyCount()).toMatch(/ 2$/);
    expect(walks).toBe(4);
  });

  it('reads the shard census once per scrape for its four gauges, and afresh at the next scrape', async () => {
    const metrics = new OperatorMetrics();
    let reads = 0;
    metrics.watchShards(
      () => {
        reads++;
        return [
          { kind: 'AgentDeployment', assigned: reads, unassigned: 0, awaitingPass: 0, awaitingRead: 0 },
        ];
      },
      () => 3,
    );
    const first = await metrics.registry.metrics();
    expect(reads).toBe(1);
    expect(first).toContain('agent_operator_shard_objects{kind="AgentDeployment"} 1');
    await new Promise((resolve) => setImmediate(resolve));
    const second = await metrics.registry.metrics();
    expect(reads).toBe(2);
    expect(second).toContain('agent_operator_shard_objects{kind="AgentDeployment"} 2');
  });
});
