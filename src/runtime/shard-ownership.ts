/**
 * Which replica owns an object under `--sharding=auto` (pure): rendezvous (highest random weight)
 * hashing of the object's key over the live members, and the rule that keeps an object with at most
 * one replica while the members' views of each other differ.
 *
 * Rendezvous hashing: every member scores every key, the highest score owns it. Adding or removing a
 * member moves only the keys it wins or held (about 1/n of them), and the shares are even without
 * virtual nodes. Every replica computes the same owner from the same member list, with no coordinator.
 */

/** FNV-1a over the UTF-16 code units, then murmur3's finalizer so close strings score far apart. */
function score(member: string, key: string): number {
  let h = 0x811c9dc5;
  const text = `${member}\u0000${key}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The member that owns `key` among `members` (undefined when there are none). Ties go to the lower name. */
export function ownerOf(key: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const member of members) {
    const s = score(member, key);
    if (s > bestScore || (s === bestScore && best !== undefined && member < best)) {
      best = member;
      bestScore = s;
    }
  }
  return best;
}

/** A live member as another reads it from its Lease: who, and the member list it has acknowledged. */
export interface MemberClaim {
  identity: string;
  /** The members it acknowledged (after letting go of what it no longer owns under them). */
  acknowledged: readonly string[];
}

export interface SelfState {
  identity: string;
  /**
   * Every member list this replica's Lease may show to the others (the one it wrote last, and one
   * whose write has not been followed by a read of the others' yet, or whose outcome is unknown).
   */
  claims: readonly (readonly string[])[];
  /** The member list it sees now, acknowledged once it let go of what it loses under it. */
  target: readonly string[];
}

/**
 * Whether this replica may start a pass of `key`: it owns the key under every list its Lease may show
 * and under the one it moves to, and no other live member owns it under the list that member published. Each
 * replica publishes its list before reading the others' (a write, then a list of every member Lease),
 * so of two replicas that both claim a key, the later to publish reads the earlier's claim and waits:
 * two replicas never both pass this check for one key. A member whose Lease expired is not live; it
 * stopped before its Lease could be seen expired (its renew deadline is below the lease duration).
 */
export function mayWork(key: string, self: SelfState, others: readonly MemberClaim[]): boolean {
  for (const claim of self.claims) if (ownerOf(key, claim) !== self.identity) return false;
  if (ownerOf(key, self.target) !== self.identity) return false;
  return others.every((o) => o.identity === self.identity || ownerOf(key, o.acknowledged) !== o.identity);
}

/** Whether no live member may hold `key` now: every one's published list gives it to someone else. */
export function unclaimed(key: string, members: readonly MemberClaim[]): boolean {
  return members.every((m) => ownerOf(key, m.acknowledged) !== m.identity);
}
