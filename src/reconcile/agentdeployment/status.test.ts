import { describe, expect, it } from 'vitest';
import type { AgentDeploymentStatus } from '../../api/agentdeployment.ts';
import type { Deployment } from '../../controlplane/schemas.ts';
import { recordObserved } from './status.ts';

const deployment = (over: { url?: string; image?: string; sha?: string }) =>
  ({
    id: 'd-1',
    status: 'READY',
    latest_revision_id: 'r-1',
    active_revision_id: 'r-1',
    image_version: over.image ?? null,
    source_config: { custom_url: over.url ?? null },
    source_revision_config: { repo_commit_sha: over.sha ?? null },
  }) as unknown as Deployment;

describe('recordObserved', () => {
  it.each<[string, { url?: string; image?: string; sha?: string }, keyof AgentDeploymentStatus, number]>([
    ['a URL longer than 2048', { url: `https://x.example/${'a'.repeat(3000)}` }, 'url', 2048],
    ['an image version longer than 256', { image: 'v'.repeat(1000) }, 'imageVersion', 256],
    ['a commit longer than 64', { sha: 'f'.repeat(100) }, 'repoCommitSha', 64],
  ])('cuts %s to the status limit, so the status write cannot fail on it', (_, over, field, max) => {
    const status: AgentDeploymentStatus = {};
    recordObserved(status, deployment(over));
    const value = status[field] as string;
    expect(value).toHaveLength(max);
    expect(value.endsWith('…')).toBe(true);
  });

  it('keeps values within the limits as they are', () => {
    const status: AgentDeploymentStatus = {};
    recordObserved(status, deployment({ url: 'https://x.example', image: 'v1', sha: 'abc' }));
    expect(status).toMatchObject({ url: 'https://x.example', imageVersion: 'v1', repoCommitSha: 'abc' });
  });
});
