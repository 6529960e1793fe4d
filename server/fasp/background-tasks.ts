/**
 * Work a FASP route starts after answering (a debug callback, subscribing once data_sharing
 * is enabled, fetching announced objects): run one after another per key, failures logged,
 * never thrown at the request that started them. `settled()` waits for all of them (tests,
 * shutdown).
 */
export class BackgroundTasks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly onError: (error: unknown, what: string) => void) {}

  /** Runs `task` after the tasks already queued under `key` (on a later turn of the event loop). */
  run(key: string, what: string, task: () => Promise<void>): void {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(task)
      .catch((error: unknown) => this.onError(error, what));
    this.tails.set(key, next);
    this.running.add(next);
    void next.finally(() => {
      this.running.delete(next);
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
  }

  /** Resolves when every task started so far, and every task those started, is done. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
