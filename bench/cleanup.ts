/** Things to undo when the run ends, however it ends: newest first, each at most once. */
export class Cleanup {
  readonly #steps: { what: string; run: () => Promise<void> }[] = [];

  /** Registers `run`; the returned function runs it now and unregisters it. */
  add(what: string, run: () => Promise<void>): () => Promise<void> {
    const step = { what, run };
    this.#steps.push(step);
    return async () => {
      const i = this.#steps.indexOf(step);
      if (i < 0) return;
      this.#steps.splice(i, 1);
      await run();
    };
  }

  async runAll(log: (line: string) => void): Promise<void> {
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      if (!step) break;
      try {
        await step.run();
      } catch (err) {
        log(`cleanup: ${step.what} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
