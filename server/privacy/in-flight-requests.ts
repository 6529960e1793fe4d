/**
 * The requests that may still write a user's data: those of tokens acting for the user, and
 * admin requests (which may name any user). Erasure first holds the user at `none` (write
 * paths asking the policy store nothing from then on), then waits here for the requests
 * that began before, so none of their writes can land after its delete.
 * Bounded by the requests in flight; a request that never reports its end is waited for
 * at most `timeoutMs`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

interface Entry {
  userId: string | null;
  admin: boolean;
  /** Made only when an erasure waits for this request (most requests never are waited for). */
  ended?: Promise<void>;
  end?: () => void;
}

export class InFlightRequests {
  private next = 0;
  private readonly live = new Map<number, Entry>();

  /** Records a request's start; call the returned function at its end. */
  begin(userId: string | null, admin: boolean): () => void {
    const ticket = this.next++;
    this.live.set(ticket, { userId, admin });
    return () => {
      this.live.get(ticket)?.end?.();
      this.live.delete(ticket);
    };
  }

  /** Waits until every request for `userId` (or by an admin) that began before now has ended. */
  async settled(userId: string, timeoutMs: number): Promise<void> {
    const waits = [...this.live.values()].filter((entry) => entry.userId === userId || entry.admin).map(endOf);
    if (waits.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    try {
      await Promise.race([Promise.all(waits), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Requests being tracked (for tests and the gauge). */
  get size(): number {
    return this.live.size;
  }
}

/** The promise an entry's end resolves (made on first use). */
function endOf(entry: Entry): Promise<void> {
  entry.ended ??= new Promise<void>((resolve) => (entry.end = resolve));
  return entry.ended;
}

/**
 * Tracks every authenticated request of the app (call on the root instance after the identity
 * plugin, so `request.identity` is set). Routes under `skipPrefix` (the privacy routes, which
 * serialise themselves per user) are not tracked: an erasure never waits for itself.
 */
export function trackInFlightRequests(app: FastifyInstance, tracker: InFlightRequests, skipPrefix: string): void {
  const ends = new WeakMap<FastifyRequest, () => void>();
  app.addHook('onRequest', async (request, reply) => {
    const identity = request.identity;
    if (identity.kind !== 'authenticated') return;
    const admin = identity.scopes.has('admin');
    if (identity.userId === null && !admin) return;
    if ((request.routeOptions.url ?? '').startsWith(skipPrefix)) return;
    const end = tracker.begin(identity.userId, admin);
    ends.set(request, end);
    // The response's 'close' comes however the exchange ends — answered, aborted by the client,
    // or cut by the server (a timeout, a socket destroyed after a parser error) — where the hooks
    // below may not: a request never ended would make every later erasure wait its full timeout.
    reply.raw.once('close', end);
  });
  const finish = async (request: FastifyRequest): Promise<void> => {
    ends.get(request)?.();
    ends.delete(request);
  };
  app.addHook('onResponse', finish);
  app.addHook('onRequestAbort', finish);
}
