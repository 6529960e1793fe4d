/**
 * Commands that send many requests (import, demo traffic) wait when the server asks them to:
 * 429 (rate limited) and 503 (shedding load) are answered by waiting the server's Retry-After
 * (else 1, 2, 4… seconds, at most a minute) and sending again, at most five times.
 */
import { ApiError } from './cli-error.js';
import { progress } from './output.js';

/** Times one request is sent again after the server asked to wait. */
export const MAX_WAITS = 5;
/** Longest wait, in seconds, whatever the server asks. */
export const MAX_WAIT_SECONDS = 60;

/** `call()`, sent again as the server asks (only safe for idempotent requests); `onWait` runs before each wait. */
export async function waitingAsAsked<T>(call: () => Promise<T>, onWait: () => void = () => undefined): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 429 && error.status !== 503) || waits >= MAX_WAITS) throw error;
      const seconds = Math.min(MAX_WAIT_SECONDS, Math.max(1, error.retryAfter ?? 2 ** waits));
      onWait();
      progress(`the server asked to wait (${error.status}): sending again in ${seconds}s`);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}
