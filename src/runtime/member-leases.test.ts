import { describe, expect, it } from 'vitest';
import type { Lease } from './lease-api.ts';
import { LeaseSightings } from './member-lease-watch.ts';
import {
  ACKNOWLEDGED_MEMBERS_ANNOTATION,
  isNews,
  memberLeaseName,
  readMemberListing,
} from './member-leases.ts';

const lease = (name: string, holder: string, resourceVersion: string, acknowledged = ''): Lease => ({
  metadata: { name, resourceVersion, annotations: { [ACKNOWLEDGED_MEMBERS_ANNOTATION]: acknowledged } },
  spec: { holderIdentity: holder, leaseDurationSeconds: 10 },
});

describe('memberLeaseName', () => {
  it.each([
    { group: 'g', identity: 'Pod_1', expected: 'g-pod-1' },
    { group: 'g', identity: '__x__', expected: 'g-x' },
  ])('$identity -> $expected', ({ group, identity, expected }) => {
    expect(memberLeaseName(group, identity)).toBe(expected);
  });
});

describe('readMemberListing', () => {
  it('leaves its own Lease out, tells live from dead, and forgets what is gone', () => {
    const sightings = new LeaseSightings();
    sightings.sight('g-b', '1', 0); // first seen at 0: dead once a listing starts 10 s later
    const items = [lease('g-a', 'a', '5'), lease('g-b', 'b', '1'), lease('g-c', 'c', '7', 'a,c')];
    const listing = readMemberListing(items, {
      identity: 'a',
      sightings,
      startedAt: 10_000,
      at: 10_050,
      leaseDurationSeconds: 10,
    });
    expect(listing.live).toEqual([{ identity: 'c', acknowledged: ['a', 'c'] }]);
    expect(listing.dead).toEqual([{ name: 'g-b', resourceVersion: '1', holder: 'b' }]);
    expect(listing.nextExpiry).toBe(20_050);
  });
});

describe('isNews', () => {
  const others = [{ identity: 'b', acknowledged: ['a', 'b'] }];
  it.each<{ name: string; type: 'ADDED' | 'MODIFIED' | 'DELETED'; lease: Lease; expected: boolean }>([
    { name: 'its own Lease', type: 'MODIFIED', lease: lease('g-a', 'a', '2', 'a'), expected: false },
    { name: 'a renewal', type: 'MODIFIED', lease: lease('g-b', 'b', '2', 'a,b'), expected: false },
    { name: 'another list', type: 'MODIFIED', lease: lease('g-b', 'b', '2', 'b'), expected: true },
    { name: 'a new member', type: 'ADDED', lease: lease('g-c', 'c', '1'), expected: true },
    { name: 'a known member gone', type: 'DELETED', lease: lease('g-b', 'b', '2'), expected: true },
    { name: 'an unknown member gone', type: 'DELETED', lease: lease('g-c', 'c', '2'), expected: false },
  ])('$name -> $expected', ({ type, lease: l, expected }) => {
    expect(isNews('a', others, type, l)).toBe(expected);
  });
});
