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

/**
 * The subscriptions, consumers and watchers that are open, so that close() can stop them and
 * let their handlers finish before the connection drains.
 */
export class OpenResources {
  private readonly stops = new Set<() => Promise<void>>();

  /** Registers `stop` and returns it wrapped so that stopping also unregisters it. */
  add(stop: () => Promise<void>): () => Promise<void> {
    let stopped: Promise<void> | undefined;
    const stopOnce = (): Promise<void> => {
      this.stops.delete(stopOnce);
      stopped ??= stop();
      return stopped;
    };
    this.stops.add(stopOnce);
    return stopOnce;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.stops].map((stop) => stop()));
  }
}
