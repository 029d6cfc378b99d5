/** The create guard's verdict on a live deployment of the object's name, one row per kind of evidence. */
import { describe, expect, it } from 'vitest';
import { judgeFound } from './guard.ts';

const MARK = '2026-01-01T00:00:05.000Z';
const found = (createdAt: string) => ({ id: 'd-9', name: 'agent', created_at: createdAt });

describe('judgeFound', () => {
  it.each<[string, string, string | undefined, string | undefined, string]>([
    ['no create pending: someone else made it', '2026-01-01T00:00:06Z', undefined, undefined, 'NameConflict'],
    ['made after the mark, unclaimed: this object made it', '2026-01-01T00:00:06Z', MARK, undefined, 'take'],
    ['made at the mark: taken', MARK, MARK, undefined, 'take'],
    [
      'made before the mark: unknown, not taken',
      '2026-01-01T00:00:04Z',
      MARK,
      undefined,
      'CreateUnconfirmed',
    ],
    [
      'made after the mark, but claimed by another object',
      '2026-01-01T00:00:06Z',
      MARK,
      'ns/other',
      'NameConflict',
    ],
    ['an unreadable creation time is no evidence', 'yesterday', MARK, undefined, 'CreateUnconfirmed'],
  ])('%s', (_, createdAt, pendingSince, claimedBy, expected) => {
    const verdict = judgeFound({ found: found(createdAt), pendingSince, claimedBy });
    expect(verdict.take ? 'take' : verdict.reason).toBe(expected);
  });

  it('says what to check and how to adopt when it does not take it', () => {
    const verdict = judgeFound({
      found: found('2026-01-01T00:00:04Z'),
      pendingSince: MARK,
      claimedBy: undefined,
    });
    expect(verdict.message).toContain('d-9');
    expect(verdict.message).toContain(MARK);
    expect(verdict.message).toContain('deploy.agents.dev/adopt-deployment-id: d-9');
  });
});
