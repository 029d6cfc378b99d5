/**
 * The member lists this replica's Lease may show (shard-membership.ts): the one a listing last
 * confirmed, and every one written since, each with the sequence number of its newest write. While
 * more than one may show, the keys each of them gives away stay unworked (shard-assignment.ts).
 */
export class AcknowledgedLists {
  #lists: Array<{ list: readonly string[]; seq: number }> = [{ list: [], seq: 0 }];
  #seq = 0;

  /** Every list the Lease may show, oldest first. */
  all(): Array<readonly string[]> {
    return this.#lists.map((c) => c.list);
  }

  /** The list written last. */
  last(): readonly string[] {
    return this.#lists.at(-1)?.list ?? [];
  }

  /** Whether a list older than the last may still show (no listing followed its replacement yet). */
  unconfirmed(): boolean {
    return this.#lists.length > 1;
  }

  /** Whether only one list may show, and it is `members`. */
  settledOn(members: readonly string[]): boolean {
    return this.#lists.length === 1 && this.#lists[0]?.list.join(',') === members.join(',');
  }

  /** A write of `list` is about to go out: returns its sequence number. */
  write(list: readonly string[]): number {
    const seq = ++this.#seq;
    const last = this.#lists.at(-1);
    // The same list again (a plain renewal): one entry, carrying the newest write.
    if (last && last.list.join(',') === list.join(',')) last.seq = seq;
    else this.#lists.push({ list, seq });
    return seq;
  }

  /** A listing followed the write `seq`: the others' lists were read after it, older lists show no more. */
  confirm(seq: number): void {
    this.#lists = this.#lists.filter((c) => c.seq >= seq);
  }
}
