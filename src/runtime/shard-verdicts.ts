/**
 * Each key's verdicts under one view of the members (does this replica own it, may it work on it, does
 * it stand by for it, may no live member hold it), computed once per view rather than per question:
 * every scrape's gauges and the queues ask them of every cached key, and a view changes only a few
 * times per change of membership. A replica sets the view the moment it changes (before a write of
 * its Lease goes out), so no answer is ever of a view it has left.
 */
import { KeyScores, type MemberClaim, mayWork, standbyOf, unclaimed } from './shard-ownership.ts';

export const OWNS = 1;
export const MAY_WORK = 2;
export const UNCLAIMED = 4;
export const STANDS_BY = 8;

export interface MembersView {
  identity: string;
  /** Every member list this replica's Lease may show (shard-ownership.ts, SelfState). */
  claims: readonly (readonly string[])[];
  target: readonly string[];
  others: readonly MemberClaim[];
  /** Membership lost: it may work on nothing, owns and stands by for nothing. */
  lost: boolean;
}

/**
 * The copy of a key that the table keeps its verdict under: one held elsewhere for as long as the
 * object is cached (a key of its own per entry was 10,000 strings, ~600 KB, at 10,000 objects); none
 * for a key not held yet (an object's first watch event): its verdict is computed but not kept.
 */
export type KeyCopy = (key: string) => string | undefined;

export class ShardVerdicts {
  #view: MembersView;
  #signature: string;
  #verdicts = new Map<string, number>();
  readonly #keyCopy: KeyCopy;

  constructor(view: MembersView, keyCopy: KeyCopy = (key) => key) {
    this.#view = view;
    this.#signature = signatureOf(view);
    this.#keyCopy = keyCopy;
  }

  /** Judge by `view` from now on; the verdicts of another view are dropped. */
  judgeBy(view: MembersView): void {
    const signature = signatureOf(view);
    this.#view = view;
    if (signature === this.#signature) return;
    this.#signature = signature;
    this.#verdicts = new Map();
  }

  /** The key's verdicts under the view (OWNS | MAY_WORK | UNCLAIMED | STANDS_BY). */
  of(key: string): number {
    let verdict = this.#verdicts.get(key);
    if (verdict === undefined) {
      verdict = judge(key, this.#view);
      const held = this.#keyCopy(key);
      if (held !== undefined) this.#verdicts.set(held, verdict);
    }
    return verdict;
  }
}

function signatureOf(view: MembersView): string {
  return JSON.stringify([view.claims, view.target, view.others, view.lost]);
}

function judge(key: string, view: MembersView): number {
  const scores = new KeyScores(key);
  // What this replica's Lease shows last: another member reads that as its claim.
  const published = [{ identity: view.identity, acknowledged: view.claims.at(-1) ?? [] }, ...view.others];
  let verdict = unclaimed(scores, published) ? UNCLAIMED : 0;
  if (view.lost) return verdict;
  if (scores.ownerOf(view.target) === view.identity) verdict |= OWNS;
  if (mayWork(scores, view, view.others)) verdict |= MAY_WORK;
  if (standbyOf(scores, view.target) === view.identity) verdict |= STANDS_BY;
  return verdict;
}
