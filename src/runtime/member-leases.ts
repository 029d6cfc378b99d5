/**
 * What a shard group's member Leases say (shard-membership.ts writes and lists them): a Lease's name
 * and the body a renewal writes, the member list a Lease acknowledges, and what a listing shows: the
 * live members, the dead ones, and when the first live one would be seen expired.
 */

import type { Lease } from './lease-api.ts';
import type { LeaseSightings } from './member-lease-watch.ts';
import type { LiveMember } from './shard-assignment.ts';

/** The label every member Lease of a group carries (its value: the group, --leader-election-id). */
export const SHARD_GROUP_LABEL = 'deploy.agents.dev/shard-group';
/** The annotation holding the member list a replica acknowledged, comma-separated and sorted. */
export const ACKNOWLEDGED_MEMBERS_ANNOTATION = 'deploy.agents.dev/acknowledged-members';

/** A Lease name from the group and identity: lower case, letters, digits and dashes. */
export function memberLeaseName(group: string, identity: string): string {
  const safe = identity
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${group}-${safe}`.slice(0, 253).replace(/-+$/, '');
}

/** The member list a Lease acknowledges. */
function acknowledgedBy(lease: Lease): string[] {
  return (lease.metadata?.annotations?.[ACKNOWLEDGED_MEMBERS_ANNOTATION] ?? '')
    .split(',')
    .filter((s) => s !== '');
}

/** A renewal of this replica's Lease (`mine`: as last read or written, undefined before it exists). */
export function memberLeaseBody(renewal: {
  mine: Lease | undefined;
  name: string;
  namespace: string;
  group: string;
  identity: string;
  acknowledge: readonly string[];
  leaseDurationSeconds: number;
  stamp: string;
}): Lease {
  const { mine, stamp } = renewal;
  return {
    metadata: {
      ...mine?.metadata,
      name: renewal.name,
      namespace: renewal.namespace,
      labels: { ...mine?.metadata?.labels, [SHARD_GROUP_LABEL]: renewal.group },
      annotations: {
        ...mine?.metadata?.annotations,
        [ACKNOWLEDGED_MEMBERS_ANNOTATION]: renewal.acknowledge.join(','),
      },
    },
    spec: {
      holderIdentity: renewal.identity,
      leaseDurationSeconds: renewal.leaseDurationSeconds,
      acquireTime: mine?.spec?.acquireTime ?? stamp,
      renewTime: stamp,
    },
  };
}

/** What one listing of the member Leases shows, this replica's own left out. */
export interface MemberListing {
  live: LiveMember[];
  /** Leases whose version was first seen a lease duration before the listing started. */
  dead: Array<{ name: string; resourceVersion: string; holder: string }>;
  /** When the Lease of a live member that stops renewing now would first be seen expired (monotonic). */
  nextExpiry: number;
}

/**
 * Reads a listing that started at `startedAt` and answered at `at` (monotonic): each version is
 * sighted at `at` unless seen before, and the Leases it no longer shows are forgotten.
 */
export function readMemberListing(
  items: readonly Lease[],
  listing: {
    identity: string;
    sightings: LeaseSightings;
    startedAt: number;
    at: number;
    leaseDurationSeconds: number;
  },
): MemberListing {
  const { identity, sightings } = listing;
  const result: MemberListing = { live: [], dead: [], nextExpiry: Number.POSITIVE_INFINITY };
  const names = new Set<string>();
  for (const lease of items) {
    const leaseName = lease.metadata?.name ?? '';
    const rv = lease.metadata?.resourceVersion ?? '';
    names.add(leaseName);
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder === identity) continue;
    const firstSeen = sightings.sight(leaseName, rv, listing.at);
    const heldForMs = (lease.spec?.leaseDurationSeconds ?? listing.leaseDurationSeconds) * 1000;
    if (holder === '') continue;
    // Dead: it stopped before this could be seen.
    if (listing.startedAt >= firstSeen + heldForMs) {
      result.dead.push({ name: leaseName, resourceVersion: rv, holder });
      continue;
    }
    result.nextExpiry = Math.min(result.nextExpiry, firstSeen + heldForMs);
    result.live.push({ identity: holder, acknowledged: acknowledgedBy(lease) });
  }
  sightings.keepOnly(names);
  return result;
}

/** Whether a watched Lease differs from what the last listing showed of its member (`others`). */
export function isNews(
  identity: string,
  others: readonly LiveMember[],
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  lease: Lease,
): boolean {
  const holder = lease.spec?.holderIdentity ?? '';
  if (holder === identity) return false;
  const known = others.find((m) => m.identity === holder);
  if (type === 'DELETED') return known !== undefined;
  return holder !== '' && known?.acknowledged.join(',') !== acknowledgedBy(lease).join(',');
}
