/** A clock whose timers fire only when the test advances it: backoff and timeouts without sleeping. */
import type { AgentClock } from '../../../server/platform/agents/agent-schedule.js';

interface Pending {
  id: number;
  at: number;
  callback: () => void;
}

export class ManualClock implements AgentClock {
  private time = Date.parse('2026-01-01T00:00:00Z');
  private nextId = 1;
  private pending: Pending[] = [];
  /** Every delay asked for, in order. */
  readonly delays: number[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.time + ms, callback };
    this.pending.push(timer);
    this.delays.push(ms);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.id !== handle);
  }

  /** Timers due in the future, soonest first (their delays from now). */
  dueIn(): number[] {
    return this.pending.map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  /**
   * Moves time forward by `ms`, firing due timers in order and letting their promises settle.
   * With `idle`, also waits after each timer (in real time, up to 5 s) until `idle()` holds:
   * for work that waits on a database server, which settling promises does not cover.
   */
  async advance(ms: number, idle?: () => boolean): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = this.pending.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      this.pending = this.pending.filter((t) => t !== next);
      this.time = next.at;
      next.callback();
      await settle();
      if (idle) await until(idle);
    }
    this.time = end;
    await settle();
  }
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Waits in real time until `done()` holds; throws after 5 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the clock waited 5 s for the runners to go idle');
    await new Promise<void>((resolve) => setTimeout(resolve, 2));
  }
}
