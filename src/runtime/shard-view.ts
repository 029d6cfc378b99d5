/**
 * What one view of the members says of a key (is it assigned to this replica, may it work on it, does
 * it stand by for it, may no live member hold it), by shard-assignment.ts's rules, scored as asked. A
 * replica sets the view the moment it changes (before a write of its Lease goes out), so no answer is
 * ever of a view it has left.
 */
import { KeyScores, type LiveMember, mayWork, standbyOf, unassigned } from './shard-assignment.ts';

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

export class ShardView {
  #view: MembersView;
  /** Every member's published list as the others read it, this replica's first. */
  #asRead: readonly LiveMember[];
  #signature: string;
  #views = 0;

  constructor(view: MembersView) {
    this.#view = view;
    this.#asRead = asRead(view);
    this.#signature = signatureOf(view);
  }

  /** Answer by `view` from now on. */
  set(view: MembersView): void {
    const signature = signatureOf(view);
    if (signature === this.#signature) return;
    this.#signature = signature;
    this.#view = view;
    this.#asRead = asRead(view);
    this.#views += 1;
  }

  /** How many views were set: while it stays the same, so does every key's standing. */
  get views(): number {
    return this.#views;
  }

  /** The key's standing under the view (ASSIGNED | MAY_WORK | UNASSIGNED | STANDS_BY). */
  of(key: string): number {
    const view = this.#view;
    const scores = new KeyScores(key);
    let standing = unassigned(scores, this.#asRead) ? UNASSIGNED : 0;
    if (view.lost) return standing;
    if (scores.assigneeOf(view.target) === view.identity) standing |= ASSIGNED;
    if (mayWork(scores, view, view.others)) standing |= MAY_WORK;
    if (standbyOf(scores, view.target) === view.identity) standing |= STANDS_BY;
    return standing;
  }
}

function signatureOf(view: MembersView): string {
  return JSON.stringify([view.published, view.target, view.others, view.lost]);
}

/** What this replica's Lease shows last, as another member reads it, then the others' lists. */
function asRead(view: MembersView): readonly LiveMember[] {
  return [{ identity: view.identity, acknowledged: view.published.at(-1) ?? [] }, ...view.others];
}
