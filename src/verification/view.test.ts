import { describe, expect, it } from 'vitest';
import type { VerificationStatus } from '../api/verification.ts';
import { viewOf } from './view.ts';

const attempt = (outcome: 'Succeeded' | 'Failed') => ({
  runId: 'r1',
  threadId: 't1',
  startedAt: '2025-01-01T00:00:00.000Z',
  completedAt: '2025-01-01T00:00:01.000Z',
  outcome,
  duration: '1s',
  ...(outcome === 'Failed' ? { message: 'run r1 on thread t1 ended error: ValueError: boom' } : {}),
});
const record = (extra: Partial<VerificationStatus>): VerificationStatus => ({
  revisionId: 'rev',
  specDigest: 'd',
  ...extra,
});

describe('viewOf', () => {
  it.each<[string, VerificationStatus | undefined, string, string, string]>([
    ['nothing yet', undefined, 'progressing', 'Verifying', 'Unknown'],
    [
      'a run in flight',
      record({ current: { runId: 'r', threadId: 't', startedAt: 'x' } }),
      'progressing',
      'Verifying',
      'Unknown',
    ],
    ['succeeded', record({ last: attempt('Succeeded') }), 'ready', 'Succeeded', 'True'],
    [
      're-verifying after a success stays ready',
      record({ last: attempt('Succeeded'), current: { runId: 'r2', threadId: 't2', startedAt: 'x' } }),
      'ready',
      'Succeeded',
      'True',
    ],
    ['failed', record({ last: attempt('Failed'), failures: 2 }), 'waiting', 'VerificationFailed', 'False'],
    [
      'another revision counts as nothing',
      { ...record({ last: attempt('Succeeded') }), revisionId: 'old' },
      'progressing',
      'Verifying',
      'Unknown',
    ],
  ])('%s', (_name, given, kind, reason, verified) => {
    const view = viewOf(given, 'rev');
    expect(view.outcome).toMatchObject({ kind, reason });
    expect(view.verified).toMatchObject({ status: verified, reason });
  });

  it('quotes the run status and message on failure', () => {
    const view = viewOf(record({ last: attempt('Failed'), failures: 2 }), 'rev');
    expect(view.outcome.message).toContain('ended error: ValueError: boom');
    expect(view.outcome.message).toContain('2 failed in a row');
  });
});
