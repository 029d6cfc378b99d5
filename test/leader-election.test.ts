/**
 * Two controllers with leader election over one namespace: only the leader writes, and a graceful stop
 * hands over to the other at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultListeners } from '../src/simulator/index.ts';
import { createAgd, eventually, type Harness, sleep, startHarness, waitReady } from './support/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('leader', {
    withOperator: false,
    env: { LEADER_ELECT: 'true', LEADER_ELECTION_ID: 'shard-a' },
  });
});

afterAll(async () => {
  await h?.stop();
});

const agd = (name: string) => ({
  metadata: { name },
  spec: {
    source: 'external_image',
    sourceConfig: { listenerId: defaultListeners()[0]?.id },
    sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1` },
  },
});

it('never lets two replicas write, and hands over on a graceful stop', async () => {
  const first = await h.startOperator();
  const second = await h.startOperator();
  const leaders = () => [first, second].filter((o) => o.isLeader());
  await eventually(async () => leaders().length === 1, 'one leader');

  // Sample leadership while objects are created: never two leaders at once.
  let sampling = true;
  let maxLeaders = 0;
  const sampler = (async () => {
    while (sampling) {
      maxLeaders = Math.max(maxLeaders, leaders().length);
      await sleep(20);
    }
  })();
  for (const name of ['one', 'two', 'three']) await createAgd(h, agd(name));
  for (const name of ['one', 'two', 'three']) await waitReady(h, name);

  const leader = leaders()[0];
  const follower = leader === first ? second : first;
  await leader?.stop(1_000);
  await eventually(async () => follower.isLeader(), 'follower takes over', 10_000);
  await createAgd(h, agd('four'));
  await waitReady(h, 'four');
  sampling = false;
  await sampler;

  expect(maxLeaders).toBe(1);
  for (const name of ['one', 'two', 'three', 'four']) {
    const posts = h.sim
      .requests({ method: 'POST', route: '/v2/deployments' })
      .filter((r) => (r.body as { name?: string }).name === name);
    expect(posts).toHaveLength(1);
    expect(h.sim.deployments().filter((d) => d.name === name)).toHaveLength(1);
  }
});
