/**
 * The clock of the simulator's asynchronous deletions: AWAITING_DELETE, then AWAITING_FINAL_DELETE,
 * then gone, one revision step each, held in AWAITING_DELETE while deletions are held.
 */

/** The statuses a deletion walks through, one revision step each, before the deployment is gone. */
const DELETION_STATUSES = ['AWAITING_DELETE', 'AWAITING_FINAL_DELETE'] as const;
type DeletionStatus = (typeof DELETION_STATUSES)[number];

/** What the clock does to the deployments it deletes. */
interface DeletedDeployments {
  /** Whether the deployment is still stored. */
  exists(id: string): boolean;
  /** The deletion moved the deployment to `status`. */
  show(id: string, status: DeletionStatus): void;
  /** The deletion ended: the deployment goes. */
  remove(id: string): void;
}

export class DeletionClock {
  readonly #deleting = new Map<string, { step: number; timer?: NodeJS.Timeout }>();
  #held = false;
  readonly #stepMs: number;
  readonly #deployments: DeletedDeployments;

  constructor(stepMs: number, deployments: DeletedDeployments) {
    this.#stepMs = stepMs;
    this.#deployments = deployments;
  }

  has(id: string): boolean {
    return this.#deleting.has(id);
  }

  /** Starts deleting `id` (shown in the first status at once), unless it is deleting already. */
  start(id: string): void {
    if (this.#deleting.has(id)) return;
    this.#deleting.set(id, { step: 0 });
    this.#deployments.show(id, DELETION_STATUSES[0]);
    this.#schedule(id);
  }

  /** While held, deletions stay in AWAITING_DELETE; releasing lets them go on. */
  hold(hold: boolean): void {
    this.#held = hold;
    if (!hold) for (const id of this.#deleting.keys()) this.#schedule(id);
  }

  /** The deployment is gone: its deletion ends. */
  forget(id: string): void {
    clearTimeout(this.#deleting.get(id)?.timer);
    this.#deleting.delete(id);
  }

  close(): void {
    for (const deletion of this.#deleting.values()) clearTimeout(deletion.timer);
  }

  #schedule(id: string): void {
    const deletion = this.#deleting.get(id);
    if (!deletion || this.#held) return;
    clearTimeout(deletion.timer);
    deletion.timer = setTimeout(() => {
      if (!this.#deployments.exists(id) || this.#held) return;
      deletion.step += 1;
      const status = DELETION_STATUSES[deletion.step];
      if (!status) {
        this.#deployments.remove(id);
        return;
      }
      this.#deployments.show(id, status);
      this.#schedule(id);
    }, this.#stepMs);
    deletion.timer.unref();
  }
}
