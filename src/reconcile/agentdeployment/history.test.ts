import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../api/remediation.ts';
import {
  addRevision,
  configOfRevision,
  desiredConfig,
  historyLimitOf,
  lastGood,
  markRolledBack,
  observeAnalysisPhase,
  observeStatus,
  observeVerification,
  sameConfig,
  sameSource,
} from './history.ts';

const AT = '2026-11-25T17:00:00Z';
const LATER = '2026-11-25T17:05:00Z';
const entry = (id: string, more: Partial<HistoryEntry> = {}): HistoryEntry => ({
  id,
  image: `img:${id}`,
  secretsDigest: 's1',
  resourceSpecDigest: 'r1',
  trigger: 'Spec',
  generation: 1,
  ...more,
});
const opts = { limit: 3, verificationRequired: false };

describe('configuration', () => {
  it('the desired configuration: the source, the secrets digest and a resource spec digest after normalisation', () => {
    const base = {
      name: 'a',
      source: 'external_image' as const,
      source_config: { resource_spec: { cpu: 1, memory_mb: 512 } },
      source_revision_config: { image_uri: 'x:1' },
      secrets: [],
    };
    const a = desiredConfig(base, 'sec');
    // The platform's defaults (limits at twice the requests) do not make a difference.
    const b = desiredConfig(
      {
        ...base,
        source_config: { resource_spec: { cpu: 1, memory_mb: 512, cpu_limit: 2, memory_limit_mb: 1024 } },
      },
      'sec',
    );
    expect(a).toMatchObject({ image: 'x:1', secretsDigest: 'sec' });
    expect(a.resourceSpecDigest).toBe(b.resourceSpecDigest);
    expect(sameConfig(a, b)).toBe(true);
    expect(sameConfig(a, { ...a, secretsDigest: 'other' })).toBe(false);
  });

  it.each([
    ['same image', { image: 'a' }, { image: 'a' }, true],
    ['other image', { image: 'a' }, { image: 'b' }, false],
    ['same ref, one commit unknown', { repoRef: 'main', repoCommitSha: 'c1' }, { repoRef: 'main' }, true],
    [
      'same ref, other commits',
      { repoRef: 'main', repoCommitSha: 'c1' },
      { repoRef: 'main', repoCommitSha: 'c2' },
      false,
    ],
    [
      'same ref, other path',
      { repoRef: 'main', graphConfigPath: 'a.json' },
      { repoRef: 'main', graphConfigPath: 'b.json' },
      false,
    ],
  ])('sameSource: %s', (_name, a, b, same) => {
    expect(sameSource(a, b)).toBe(same);
  });

  it('a revision read from the platform takes the secrets and resources around it', () => {
    expect(
      configOfRevision(
        { repo_ref: 'main', repo_commit_sha: 'c1', graph_config_path: 'g.json' },
        {
          secretsDigest: 's',
          resourceSpecDigest: 'r',
        },
      ),
    ).toStrictEqual({
      repoRef: 'main',
      repoCommitSha: 'c1',
      graphConfigPath: 'g.json',
      secretsDigest: 's',
      resourceSpecDigest: 'r',
    });
  });

  it('platform strings past the status limits are cut, so a status write cannot fail on them', () => {
    const config = configOfRevision({ image_uri: 'i'.repeat(2000), repo_commit_sha: 'c'.repeat(100) }, {});
    expect(config.image).toHaveLength(512);
    expect(config.repoCommitSha).toHaveLength(64);
    const [e] = observeStatus([entry('a')], 'a', 'S'.repeat(500), AT);
    expect(e?.status).toHaveLength(64);
  });

  it.each([
    [undefined, 5],
    [1, 1],
    [10, 10],
    [99, 10],
  ])('historyLimit %s -> %s', (limit, want) => {
    expect(historyLimitOf(limit === undefined ? {} : { revisionHistoryLimit: limit })).toBe(want);
  });
});

describe('addRevision', () => {
  const add = (history: HistoryEntry[], id: string, o = opts) =>
    addRevision(
      history,
      { id, config: { image: `img:${id}` }, trigger: 'Spec', generation: 2, at: LATER },
      o,
    );

  it('puts the new revision first and supersedes older ones still in progress', () => {
    const history = add([entry('a', { outcome: 'Deployed' }), entry('b')], 'c');
    expect(history.map((e) => [e.id, e.outcome])).toStrictEqual([
      ['c', undefined],
      ['a', 'Deployed'],
      ['b', 'Superseded'],
    ]);
    expect(history[0]).toMatchObject({ trigger: 'Spec', generation: 2, createdAt: LATER });
  });

  it('a revision known already changes nothing', () => {
    const history = [entry('a')];
    expect(add(history, 'a')).toStrictEqual(history);
  });

  it('keeps the limit, and the last good revision however old', () => {
    const history = [
      entry('d', { outcome: 'Failed' }),
      entry('c', { outcome: 'Failed' }),
      entry('b', { outcome: 'Failed' }),
      entry('a', { outcome: 'Deployed' }),
    ];
    expect(add(history, 'e').map((e) => e.id)).toStrictEqual(['e', 'd', 'a']);
    expect(
      add([entry('b', { outcome: 'Deployed' }), entry('a', { outcome: 'Deployed' })], 'c', {
        ...opts,
        limit: 2,
      }).map((e) => e.id),
    ).toStrictEqual(['c', 'b']);
  });
});

describe('outcomes and the last good revision', () => {
  it.each([
    ['DEPLOYING', undefined, undefined],
    ['DEPLOYED', undefined, 'Deployed'],
    ['DEPLOY_FAILED', undefined, 'Failed'],
    ['SKIPPED', undefined, 'Superseded'],
    ['DEPLOYED', 'RolledBack', 'RolledBack'],
    ['DEPLOYED', 'Failed', 'Failed'],
  ] as const)('status %s over outcome %s -> %s', (status, before, after) => {
    const [e] = observeStatus([entry('a', before ? { outcome: before } : {})], 'a', status, AT);
    expect(e?.outcome).toBe(after);
    expect(e?.status).toBe(status);
  });

  it('the last good revision is the newest Deployed one; with verification, the newest verified one', () => {
    let history = [
      entry('c', { outcome: 'RolledBack' }),
      entry('b', { outcome: 'Deployed' }),
      entry('a', { outcome: 'Deployed' }),
    ];
    history = observeVerification(history, 'a', 'Succeeded', AT);
    history = observeVerification(history, 'b', 'Failed', AT);
    expect(lastGood(history, false)).toBe('b');
    expect(lastGood(history, true)).toBe('a');
    expect(lastGood(markRolledBack(history, 'b', AT), false)).toBe('a');
    expect(lastGood([entry('a', { outcome: 'Failed' })], false)).toBeUndefined();
  });

  it('a revision under analysis is good only once its analysis succeeded; one never analysed stays good', () => {
    const history = [
      entry('c', { outcome: 'Deployed' }),
      entry('b', { outcome: 'Deployed' }),
      entry('a', { outcome: 'Deployed' }),
    ];
    expect(lastGood(observeAnalysisPhase(history, 'c', 'Running'), false)).toBe('b');
    expect(lastGood(observeAnalysisPhase(history, 'c', 'Inconclusive'), false)).toBe('b');
    expect(lastGood(observeAnalysisPhase(history, 'c', 'Successful'), false)).toBe('c');
    const failed = observeAnalysisPhase(observeAnalysisPhase(history, 'c', 'Failed'), 'b', 'Failed');
    expect(lastGood(failed, false)).toBe('a');
  });
});
