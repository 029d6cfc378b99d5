import { describe, expect, it } from 'vitest';
import { formatShardedReport, rssGoalMarginMiB, type ShardedWithAlone } from './sharded.ts';

/** A sharded result with only what the RSS goal reads: each replica's RSS and one replica alone's. */
const pair = (round: number, replicasMiB: number[], aloneMiB: number) =>
  ({
    n: 10_000,
    round,
    replicas: replicasMiB.length,
    lease: { durationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 },
    readyMs: 0,
    perReplica: replicasMiB.map((rssMiB, i) => ({
      identity: `bench-r${i}`,
      assigned: 3_333,
      rssMiB,
      heapTotalMiB: 0,
      heapUsedMiB: 0,
      anonymousMiB: 0,
      sockets: 0,
      callsPerPoll: 34,
    })),
    assignedMaxOverMean: 1,
    movedOnJoin: 0.25,
    orphaned: 3_333,
    killToAssignedMs: 0,
    killToReconciledMs: 0,
    alone: { n: 3_333, rssMiB: aloneMiB, heapUsedMiB: 0, anonymousMiB: 0 },
  }) satisfies ShardedWithAlone;

describe('rssGoalMarginMiB', () => {
  it.each([
    { name: 'every replica within the goal', result: pair(1, [112.8, 113.0, 112.3], 104.4), want: 1.4 },
    { name: 'the largest replica over it', result: pair(1, [112.0, 116.9, 111.7], 106.8), want: -0.1 },
    { name: 'exactly at the goal', result: pair(1, [110, 110, 110], 100), want: 0 },
  ])('$name', ({ result, want }) => {
    expect(rssGoalMarginMiB(result)).toBeCloseTo(want, 6);
  });
});

describe('formatShardedReport', () => {
  it('states the goal and its margin per run, and over rounds how often it was met', () => {
    const report = formatShardedReport([
      pair(1, [112.8, 113.0, 112.3], 104.4),
      pair(2, [112.0, 117.2, 111.7], 106.8),
    ]);
    expect(report).toContain('| sharded | N = 10000 (round 1) | N = 10000 (round 2) |');
    expect(report).toContain(
      '| goal: one replica alone at its share + 10 MiB (margin of the largest) | 114.4 MiB (+1.4) | 116.8 MiB (−0.4) |',
    );
    expect(report).toContain(
      'RSS goal met in 1 of 2 runs; margin of the largest replica +1.4, −0.4 MiB (median +0.5)',
    );
  });
});
