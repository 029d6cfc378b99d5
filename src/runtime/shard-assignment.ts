/**
 * Which replica an object is assigned to under `--sharding=auto` (pure): rendezvous (highest random weight)
 * hashing of the object's key over the live members, and the rule that keeps an object with at most one
 * replica while the members' views of each other differ.
 *
 * Rendezvous hashing: every member scores every key, the key is assigned to the highest score. Adding or
 * removing a member moves only the keys it wins or held (about 1/n of them), and the shares are even without
 * virtual nodes. Every replica computes the same assignee from the same member list, with no coordinator.
 */

/**
 * FNV-1a over the UTF-16 code units of `${member}\u0000${key}`, then murmur3's finalizer so close
 * strings score far apart: every replica of every version computes the same scores.
 */
function score(member: string, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < member.length; i++) {
    h ^= member.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = Math.imul(h, 0x01000193); // the separator, U+0000: xor with 0 changes nothing
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * One key's scores, each member's computed once: a key is checked against several member lists (this
 * replica's published lists, its target, every other member's acknowledged list) that name mostly the
 * same members.
 */
export class KeyScores {
  readonly #key: string;
  readonly #members: string[] = [];
  readonly #scores: number[] = [];

  constructor(key: string) {
    this.#key = key;
  }

  #score(member: string): number {
    const i = this.#members.indexOf(member);
    if (i >= 0) return this.#scores[i] as number;
    const s = score(member, this.#key);
    this.#members.push(member);
    this.#scores.push(s);
    return s;
  }

  /**
   * The member the key is assigned to among `members` (undefined when there are none), or among them but
   * `except`. Ties go to the lower name.
   */
  assigneeOf(members: readonly string[], except?: string): string | undefined {
    let best: string | undefined;
    let bestScore = -1;
    for (const member of members) {
      if (member === except) continue;
      const s = this.#score(member);
      if (best === undefined || outranks(s, member, bestScore, best)) {
        best = member;
        bestScore = s;
      }
    }
    return best;
  }
}

/** Whether `a`, scoring `sa` for a key, outranks `b`, scoring `sb`: the higher score; a tie, the lower name. */
function outranks(sa: number, a: string, sb: number, b: string): boolean {
  return sa > sb || (sa === sb && a < b);
}

/** The member `key` is assigned to among `members` (undefined when there are none); ties: the lower name. */
export function assigneeOf(key: string, members: readonly string[]): string | undefined {
  return new KeyScores(key).assigneeOf(members);
}

/**
 * The member that takes `key` over should its assignee among `members` go: the second highest score
 * (undefined with fewer than two members). It keeps the key's object ready (cached-share.ts).
 */
export function standbyOf(key: string | KeyScores, members: readonly string[]): string | undefined {
  const scores = typeof key === 'string' ? new KeyScores(key) : key;
  return scores.assigneeOf(members, scores.assigneeOf(members));
}

/** A live member as another reads it from its Lease: who, and the member list it has acknowledged. */
export interface LiveMember {
  identity: string;
  /** The members it acknowledged (after handing over what is no longer assigned to it under them). */
  acknowledged: readonly string[];
}

export interface SelfState {
  identity: string;
  /**
   * Every member list this replica's Lease may show to the others (the one it wrote last, and one
   * whose write has not been followed by a read of the others' yet, or whose outcome is unknown).
   */
  published: readonly (readonly string[])[];
  /** The member list it sees now, acknowledged once it let go of what it loses under it. */
  target: readonly string[];
}

/**
 * Whether this replica may start a pass of `key`: the key is assigned to it under every list its Lease may
 * show and under the one it moves to, and no other live member has it assigned under the list that member
 * published. Each replica publishes its list before reading the others' (a write, then a list of every member
 * Lease), so of two replicas whose lists both assign themselves a key, the later to publish reads the
 * earlier's list and waits: two replicas never both pass this check for one key. A member whose Lease expired
 * is not live; it stopped before its Lease could be seen expired (its renew deadline is below the lease
 * duration).
 */
export function mayWork(key: string | KeyScores, self: SelfState, others: readonly LiveMember[]): boolean {
  const scores = typeof key === 'string' ? new KeyScores(key) : key;
  for (const list of self.published) if (scores.assigneeOf(list) !== self.identity) return false;
  if (scores.assigneeOf(self.target) !== self.identity) return false;
  return others.every(
    (o) => o.identity === self.identity || scores.assigneeOf(o.acknowledged) !== o.identity,
  );
}

/** Whether no live member may hold `key` now: every one's published list gives it to someone else. */
export function unassigned(key: string | KeyScores, members: readonly LiveMember[]): boolean {
  const scores = typeof key === 'string' ? new KeyScores(key) : key;
  return members.every((m) => scores.assigneeOf(m.acknowledged) !== m.identity);
}
