/**
 * Who the simulated users are to the server. By default each one gets its own short-lived
 * token bound to it, minted in the server's database like `recsvc token create --user`: the
 * server then limits each simulated user as it limits a real one (its rate limits are per
 * token), so the demo fills an experiment on a server with its limits on. The tokens are
 * revoked when the run ends and expire shortly after it anyway (a Ctrl-C skips the revoking).
 *
 * With --shared-token every request carries the --token instead (an admin acts for anyone):
 * for a server whose database is elsewhere; its rate limits then apply to the whole community.
 */
import type { TrafficOptions } from './traffic.options.js';

/** Hands out the bearer token each simulated user acts with, and cleans up after the run. */
export interface TrafficIdentities {
  /** Where the tokens come from, for the summary. */
  readonly source: string;
  tokenFor(userId: string): string | undefined;
  close(): Promise<void>;
}

/** Tokens live this long after the run's planned end: long enough for slow servers, short enough to be harmless. */
const TOKEN_GRACE_SECONDS = 600;

/** The identities of a run: minted per user from the database, or the shared --token. */
export async function openIdentities(options: TrafficOptions, userIds: readonly string[]): Promise<TrafficIdentities> {
  if (options.sharedToken === true) {
    return { source: 'every user with --token', tokenFor: () => options.token, close: () => Promise.resolve() };
  }
  const target = options.db ?? process.env.RECSVC_DATABASE_URL ?? process.env.RECSVC_DB ?? './recsvc.db';
  const { mintUserTokens } = await import('../token/user-tokens.js');
  const ttlSeconds = Math.ceil(options.duration) + TOKEN_GRACE_SECONDS;
  const minted = await mintUserTokens(target, userIds, { scopes: ['read', 'write'], ttlSeconds, label: 'recsvc demo traffic' });
  return {
    source: `a token per user, minted in ${target}`,
    tokenFor: (userId) => minted.tokens.get(userId),
    close: () => minted.revokeAll(),
  };
}
