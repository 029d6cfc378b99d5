/**
 * Each key's verdicts under one view of the members (is it assigned to this replica, may it work on it, does
 * it stand by for it, may no live member hold it), by shard-assignment.ts's rules, from a ranking of the
 * members kept per key rather than from scores computed per question: every scrape's gauges and the
 * queues ask them of every cached key, a view changes a few times per change of membership (a member
 * gone, each acknowledgement), and scoring every cached key anew at each view sits on a takeover's
 * critical path (four FNV-1a hashes a key under V8's baseline compiler: tenths of a second at 10,000). A
 * ranking stays right while members only leave; a member new to it ranks every key anew. A replica
 * sets the view the moment it changes (before a write of its Lease goes out), so no answer is ever of
 * a view it has left.
 */
import {
  type KeyAssignees,
  KeyScores,
  type LiveMember,
  mayWork,
  ranking,
  standbyOf,
  unassigned,
} from './shard-assignment.ts';

export const ASSIGNED = 1;
export const MAY_WORK = 2;
export const UNASSIGNED = 4;
export const STANDS_BY = 8;

export interface MembersView {
  identity: string;
  /** Every member list this replica's Lease may show (shard-assignment.ts, SelfState). */
  published: readonly (readonly string[])[];
  target: readonly string[];
  others: readonly LiveMember[];
  /** Membership lost: nothing is assigned to it, it may work on nothing and stands by for nothing. */
  lost: boolean;
}

/**
 * The copy of a key that the table keeps its ranking under: one held elsewhere for as long as the
 * object is cached (a key of its own per entry would be one more string per cached object); none
 * for a key not held (an object's first watch event, or deleted since): its ranking is not kept.
 */
export type KeyCopy = (key: string) => string | undefined;

/** How many of the ranked members a key keeps, highest first (enough for two to leave). */
const RANK_DEPTH = 4;
/** Bits per member index in a kept ranking; the largest value marks no member. */
const INDEX_BITS = 5;
const NO_MEMBER = (1 << INDEX_BITS) - 1;
/** At most this many members are ranked (an index per member, one bit each in a list's mask). */
const RANKED_MAX = NO_MEMBER;
/** Members gone from the view since the rankings were made, past which they are made anew. */
const GONE_MAX = RANK_DEPTH - 2;
/** Rankings of keys no longer held are dropped once the table grows this far past its last sweep. */
const SWEEP_SLACK = 1024;
/**
 * Beside a key's ranking its entry keeps its verdicts (4 bits) and the view they were judged by (6
 * bits: a view's number, modulo, NO_VIEW marking none): a scrape asks every key again under one view.
 * 30 bits in all, a small integer V8 stores in the entry itself.
 */
const VERDICT_SHIFT = INDEX_BITS * RANK_DEPTH;
const VERDICTS = 0b1111;
const VIEW_SHIFT = VERDICT_SHIFT + 4;
const NO_VIEW = 63;
const RANKS = (1 << VERDICT_SHIFT) - 1;

export class ShardVerdicts {
  #view: JudgedView;
  #signature: string;
  /** The members every kept ranking ranks (none: too many to rank; each key is scored as asked). */
  #ranked: readonly string[] = [];
  /**
   * By key: its RANK_DEPTH highest of #ranked, INDEX_BITS each, the highest in the lowest bits; then
   * its verdicts and the number of the view that judged them.
   */
  #rankings = new Map<string, number>();
  #keptAtSweep = 0;
  /** The view's number (NO_VIEW never is one). */
  #viewNumber = 0;
  #views = 0;
  readonly #keyCopy: KeyCopy;

  constructor(view: MembersView, keyCopy: KeyCopy = (key) => key) {
    this.#keyCopy = keyCopy;
    this.#signature = signatureOf(view);
    this.#view = this.#judged(view);
  }

  /** Judge by `view` from now on. */
  judgeBy(view: MembersView): void {
    const signature = signatureOf(view);
    if (signature === this.#signature) return;
    this.#signature = signature;
    this.#view = this.#judged(view);
    this.#viewNumber = (this.#viewNumber + 1) % NO_VIEW;
    this.#views += 1;
    // Numbers come round again: no verdict is taken for one of a view that had the number before.
    if (this.#viewNumber === 0)
      for (const [key, entry] of this.#rankings) this.#rankings.set(key, entry | (NO_VIEW << VIEW_SHIFT));
    this.#sweep();
  }

  /** How many views keys were judged by: while it stays the same, so does every key's verdict. */
  get views(): number {
    return this.#views;
  }

  /** The key's verdicts under the view (ASSIGNED | MAY_WORK | UNASSIGNED | STANDS_BY). */
  of(key: string): number {
    const view = this.#view;
    if (view.ranked.length === 0) return judge(new KeyScores(key), view);
    const entry = this.#rankings.get(key);
    if (entry !== undefined && entry >>> VIEW_SHIFT === this.#viewNumber)
      return (entry >>> VERDICT_SHIFT) & VERDICTS;
    const ranks = entry === undefined ? packed(ranking(key, view.ranked, RANK_DEPTH)) : entry & RANKS;
    const verdict = judge(new RankedAssignees(key, ranks, view), view);
    const kept = ranks | (verdict << VERDICT_SHIFT) | (this.#viewNumber << VIEW_SHIFT);
    if (entry !== undefined) {
      this.#rankings.set(key, kept);
    } else {
      const held = this.#keyCopy(key);
      if (held !== undefined) {
        this.#rankings.set(held, kept);
        if (this.#rankings.size > 2 * this.#keptAtSweep + SWEEP_SLACK) this.#sweep();
      }
    }
    return verdict;
  }

  /** `view` as judged; the rankings are made anew when it names a member they do not rank, or lost many. */
  #judged(view: MembersView): JudgedView {
    const members = [
      ...new Set([...view.published, view.target, ...view.others.map((o) => o.acknowledged)].flat()),
    ];
    const ranked = new Set(this.#ranked);
    const stillRight =
      members.every((member) => ranked.has(member)) && ranked.size - members.length <= GONE_MAX;
    if (!stillRight) {
      this.#ranked = members.length <= RANKED_MAX ? members : [];
      this.#rankings = new Map();
      this.#keptAtSweep = 0;
    }
    return judged(view, this.#ranked);
  }

  /** Drops the rankings of keys no longer held (their objects deleted). */
  #sweep(): void {
    for (const key of this.#rankings.keys()) if (this.#keyCopy(key) === undefined) this.#rankings.delete(key);
    this.#keptAtSweep = this.#rankings.size;
  }
}

function signatureOf(view: MembersView): string {
  return JSON.stringify([view.published, view.target, view.others, view.lost]);
}

/** A view as judged: each member list a mask over the ranked members, and what it publishes. */
interface JudgedView extends MembersView {
  /** Every member's published list as the others read it, this replica's first. */
  asRead: readonly LiveMember[];
  ranked: readonly string[];
  /** The view's member lists (equal ones as one array) and each one's mask of ranked members. */
  lists: readonly (readonly string[])[];
  masks: readonly number[];
}

function judged(view: MembersView, ranked: readonly string[]): JudgedView {
  const lists: (readonly string[])[] = [];
  const masks: number[] = [];
  const byText = new Map<string, readonly string[]>();
  const one = (list: readonly string[]) => {
    const text = list.join(',');
    const seen = byText.get(text);
    if (seen) return seen;
    byText.set(text, list);
    lists.push(list);
    masks.push(list.reduce((mask, member) => mask | (1 << ranked.indexOf(member)), 0));
    return list;
  };
  const published = view.published.map(one);
  const target = one(view.target);
  const others = view.others.map((o) => ({ identity: o.identity, acknowledged: one(o.acknowledged) }));
  // What this replica's Lease shows last: another member reads that as its list.
  const asRead = [{ identity: view.identity, acknowledged: one(published.at(-1) ?? []) }, ...others];
  return {
    identity: view.identity,
    published,
    target,
    others,
    lost: view.lost,
    asRead,
    ranked,
    lists,
    masks,
  };
}

function packed(order: readonly number[]): number {
  let ranks = 0;
  for (let i = 0; i < RANK_DEPTH; i++) ranks |= (order[i] ?? NO_MEMBER) << (INDEX_BITS * i);
  return ranks;
}

/**
 * A key's assignees read from its kept ranking: the assignee among a list of the view is the highest-ranked
 * member the list names. A list that names none of them (or one not of the view) is scored.
 */
class RankedAssignees implements KeyAssignees {
  readonly #key: string;
  readonly #ranks: number;
  readonly #view: JudgedView;
  #scores: KeyScores | undefined;

  constructor(key: string, ranks: number, view: JudgedView) {
    this.#key = key;
    this.#ranks = ranks;
    this.#view = view;
  }

  assigneeOf(members: readonly string[], except?: string): string | undefined {
    const { lists, masks, ranked } = this.#view;
    const at = lists.indexOf(members);
    if (at >= 0) {
      const mask = masks[at] as number;
      const skipped = except === undefined ? -1 : ranked.indexOf(except);
      for (let i = 0; i < RANK_DEPTH; i++) {
        const member = (this.#ranks >>> (INDEX_BITS * i)) & NO_MEMBER;
        if (member === NO_MEMBER) break;
        if (member !== skipped && ((mask >>> member) & 1) === 1) return ranked[member];
      }
    }
    this.#scores ??= new KeyScores(this.#key);
    return this.#scores.assigneeOf(members, except);
  }
}

function judge(assignees: KeyAssignees, view: JudgedView): number {
  let verdict = unassigned(assignees, view.asRead) ? UNASSIGNED : 0;
  if (view.lost) return verdict;
  if (assignees.assigneeOf(view.target) === view.identity) verdict |= ASSIGNED;
  if (mayWork(assignees, view, view.others)) verdict |= MAY_WORK;
  if (standbyOf(assignees, view.target) === view.identity) verdict |= STANDS_BY;
  return verdict;
}
