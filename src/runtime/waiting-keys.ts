/**
 * The keys a work queue holds waiting, in hand-out order: the keys that continue work under way (put
 * `first`) before the others, each kind in the order it was put there. Every change is O(1), and so is
 * taking the oldest key: a convergence queues N keys, and an array spliced at its head would make each
 * hand-out and each key put first cost O(N), a cost per object that grows with N.
 *
 * For the queue's fairness rule the keys are also kept per (tenant, namespace) group, in the same
 * order: the first key whose group may go is the oldest one when it may (the common case, O(1)),
 * otherwise the oldest among the heads of the groups that may go, skipping a tenant that may not with
 * all its groups at once. That costs O(waiting groups) at worst, never a walk over the keys of a group.
 */
export class WaitingKeys {
  readonly #entries = new Map<string, Entry>();
  /** Every waiting key in hand-out order. */
  readonly #order = new Lane(ORDER);
  /** The same keys per tenant, then per namespace. */
  readonly #groups = new Map<string | undefined, Map<string, Lane>>();
  /** Counts every placement: a later one ranks after an earlier one of its kind. */
  #placed = 0;

  get size(): number {
    return this.#entries.size;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The key waits, behind the others of its kind; `tenant` and `namespace` name its group. */
  add(key: string, first: boolean, tenant: string | undefined, namespace: string): void {
    const entry: Entry = {
      key,
      tenant,
      namespace,
      continuing: first,
      rank: this.#rank(first),
      orderPrev: undefined,
      orderNext: undefined,
      groupPrev: undefined,
      groupNext: undefined,
    };
    this.#entries.set(key, entry);
    this.#order.push(entry);
    this.#groupOf(tenant, namespace).push(entry);
  }

  /** A waiting key that continues work moves behind the continuing keys, ahead of the others. */
  putFirst(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry || entry.continuing) return; // not waiting, or already among them
    const group = this.#groupOf(entry.tenant, entry.namespace);
    this.#order.remove(entry);
    group.remove(entry);
    entry.continuing = true;
    entry.rank = this.#rank(true);
    this.#order.push(entry);
    group.push(entry);
  }

  /** Takes the key out (nothing if it is not waiting). */
  remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#order.remove(entry);
    const groups = this.#groups.get(entry.tenant) as Map<string, Lane>;
    const group = groups.get(entry.namespace) as Lane;
    group.remove(entry);
    if (group.empty()) groups.delete(entry.namespace);
    if (groups.size === 0) this.#groups.delete(entry.tenant);
  }

  /** The key handed out next when nothing else decides. */
  oldest(): string | undefined {
    return this.#order.head()?.key;
  }

  /** The first key in hand-out order whose tenant and namespace may both go; undefined if none may. */
  firstThatMayGo(
    tenantMayGo: (tenant: string | undefined) => boolean,
    namespaceMayGo: (namespace: string) => boolean,
  ): string | undefined {
    const head = this.#order.head();
    if (!head) return undefined;
    if (tenantMayGo(head.tenant) && namespaceMayGo(head.namespace)) return head.key;
    let best: Entry | undefined;
    for (const [tenant, groups] of this.#groups) {
      if (!tenantMayGo(tenant)) continue;
      for (const [namespace, group] of groups) {
        if (!namespaceMayGo(namespace)) continue;
        const first = group.head();
        if (first && (!best || first.rank < best.rank)) best = first;
      }
    }
    return best?.key;
  }

  /** The waiting keys in hand-out order (for tests). */
  keys(): string[] {
    return this.#order.entries().map((entry) => entry.key);
  }

  #rank(first: boolean): number {
    this.#placed += 1;
    return first ? this.#placed : LATER + this.#placed;
  }

  /** The group of a tenant and namespace, made when it is the first key of it. */
  #groupOf(tenant: string | undefined, namespace: string): Lane {
    let groups = this.#groups.get(tenant);
    if (!groups) {
      groups = new Map();
      this.#groups.set(tenant, groups);
    }
    let group = groups.get(namespace);
    if (!group) {
      group = new Lane(GROUP);
      groups.set(namespace, group);
    }
    return group;
  }
}

/** Added to the rank of a key that does not continue work: it ranks after every continuing key. */
const LATER = 2 ** 52;

/** Which of an entry's two pairs of links a chain uses: hand-out order, or its group's. */
const ORDER = { prev: 'orderPrev', next: 'orderNext' } as const;
const GROUP = { prev: 'groupPrev', next: 'groupNext' } as const;
type Link = typeof ORDER | typeof GROUP;

interface Entry {
  readonly key: string;
  readonly tenant: string | undefined;
  readonly namespace: string;
  /** Put first (continues work under way). */
  continuing: boolean;
  /** Its place in hand-out order, comparable across groups. */
  rank: number;
  /** Its neighbours in hand-out order, and in its group (fields, not arrays: one object per key). */
  orderPrev: Entry | undefined;
  orderNext: Entry | undefined;
  groupPrev: Entry | undefined;
  groupNext: Entry | undefined;
}

/** Keys in hand-out order: the continuing ones, then the others, each a doubly linked chain. */
class Lane {
  readonly #continuing: Chain;
  readonly #later: Chain;

  constructor(link: Link) {
    this.#continuing = new Chain(link);
    this.#later = new Chain(link);
  }

  push(entry: Entry): void {
    (entry.continuing ? this.#continuing : this.#later).push(entry);
  }

  remove(entry: Entry): void {
    (entry.continuing ? this.#continuing : this.#later).remove(entry);
  }

  head(): Entry | undefined {
    return this.#continuing.head ?? this.#later.head;
  }

  empty(): boolean {
    return this.head() === undefined;
  }

  entries(): Entry[] {
    return [...this.#continuing.entries(), ...this.#later.entries()];
  }
}

/** A doubly linked chain of entries through one pair of their links. */
class Chain {
  head: Entry | undefined;
  #tail: Entry | undefined;
  readonly #prev: Link['prev'];
  readonly #next: Link['next'];

  constructor(link: Link) {
    this.#prev = link.prev;
    this.#next = link.next;
  }

  push(entry: Entry): void {
    entry[this.#prev] = this.#tail;
    entry[this.#next] = undefined;
    if (this.#tail) this.#tail[this.#next] = entry;
    else this.head = entry;
    this.#tail = entry;
  }

  remove(entry: Entry): void {
    const prev = entry[this.#prev];
    const next = entry[this.#next];
    if (prev) prev[this.#next] = next;
    else this.head = next;
    if (next) next[this.#prev] = prev;
    else this.#tail = prev;
    entry[this.#prev] = undefined;
    entry[this.#next] = undefined;
  }

  entries(): Entry[] {
    const out: Entry[] = [];
    for (let entry = this.head; entry; entry = entry[this.#next]) out.push(entry);
    return out;
  }
}
