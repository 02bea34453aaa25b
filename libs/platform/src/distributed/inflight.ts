/**
 * Tracks running handlers so that stop() or unsubscribe() can wait for them, and so that a
 * consumer can bound how many run at once. Tracked work handles its own errors: a rejection
 * is only used here to know that the work is over.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();

  track(work: Promise<void>): void {
    const done: Promise<void> = work
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Resolves once fewer than `limit` handlers are running. */
  async below(limit: number): Promise<void> {
    while (this.running.size >= limit) await Promise.race(this.running);
  }

  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
