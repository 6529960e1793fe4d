/**
 * Proxied favourite/reblog/bookmark calls (and their undo) logged as the caller's
 * interactions, once the instance has confirmed them (a 2xx answer carrying the status).
 *
 * - Only for a social identity (the user id is `<account id>@<instance>`), only
 *   `POST /api/v1/statuses/:id/{favourite,unfavourite,reblog,unreblog,bookmark,unbookmark}`.
 * - The post acted on is the status the instance answered with, or the original it
 *   reblogs (Mastodon acts on the original when given a reblog's id). The instance names it by
 *   its own id: the post is found by that instance's mapping (a post is its uri; the service's
 *   id is its own), and when the instance never showed it, and it may be stored (`mayStore`:
 *   the timelines' consent rule), the answer is stored as the instance's copy first (which adds
 *   the mapping; counters are the service's own, so recording adds the one this action made).
 *   A status that may not be stored is not logged.
 * - An undo without a recorded interaction changes nothing. Failures are logged by the
 *   caller and never change the answer the client gets.
 * - A caller at tracking level `none` is not logged: no interaction, and no status stored on
 *   their account (the instance still did what they asked). Their undo still removes what an
 *   earlier level stored.
 */
import type { AuthenticatedIdentity } from '../../src/auth/identity.js';
import { NotFoundError } from '../../src/errors.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import type { ForwardedEvent } from './proxy.routes.js';

export type LoggedAction = 'favorite' | 'reblog' | 'bookmark';

export interface ProxyInteractionDeps {
  /** The interactions feature's service (InteractionService). */
  readonly interactions: {
    record(input: { userId: string; postId: string; actionType: LoggedAction; context?: Record<string, unknown> }): Promise<unknown>;
    undo(userId: string, postId: string, actionType: LoggedAction): Promise<unknown>;
  };
  /** The service's id of the post the instance names by its own id (undefined when it never showed it). */
  postIdFor(instance: string, localId: string): Promise<string | undefined>;
  /** Stores a status as the instance's copy (PostService.ingestFromInstance); returns the service's id, undefined when not stored. */
  storeStatus(instance: string, status: Record<string, unknown>): Promise<string | undefined>;
  /** Whether the status may be stored (the timelines' consent and shape checks). */
  mayStore(status: Record<string, unknown>): boolean;
  /** Whether the caller's tracking level lets their interactions be stored (default: the transitional UNWIRED_PRIVACY). */
  readonly privacy?: Pick<PrivacyPolicy, 'allowanceFor'>;
}

const ACTION_PATH = /^\/api\/v1\/statuses\/([^/]{1,64})\/(favourite|unfavourite|reblog|unreblog|bookmark|unbookmark)$/;

const ACTIONS: Record<string, { action: LoggedAction; undo: boolean }> = {
  favourite: { action: 'favorite', undo: false },
  unfavourite: { action: 'favorite', undo: true },
  reblog: { action: 'reblog', undo: false },
  unreblog: { action: 'reblog', undo: true },
  bookmark: { action: 'bookmark', undo: false },
  unbookmark: { action: 'bookmark', undo: true },
};

/** The interaction a forwarded request confirmed, if it is one (see the file's comment). */
export function confirmedInteraction(
  event: Pick<ForwardedEvent, 'method' | 'path' | 'identity' | 'response'>,
): { userId: string; action: LoggedAction; undo: boolean; status: Record<string, unknown> } | undefined {
  if (event.method !== 'POST') return undefined;
  const identity: AuthenticatedIdentity | undefined = event.identity;
  if (identity?.source !== 'social' || identity.userId === null) return undefined;
  if (event.response.status < 200 || event.response.status >= 300) return undefined;
  const match = ACTION_PATH.exec(event.path);
  const kind = match ? ACTIONS[match[2]!] : undefined;
  if (!kind) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(event.response.body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const reblogged = record.reblog;
  const status =
    typeof reblogged === 'object' && reblogged !== null && !Array.isArray(reblogged) ? (reblogged as Record<string, unknown>) : record;
  if (typeof status.id !== 'string' || status.id === '') return undefined;
  return { userId: identity.userId, action: kind.action, undo: kind.undo, status };
}

/** The proxy's `onForwarded` hook that logs confirmed interactions. */
export function interactionLogger(deps: ProxyInteractionDeps): (event: ForwardedEvent) => Promise<void> {
  return async (event) => {
    const confirmed = confirmedInteraction(event);
    if (!confirmed) return;
    const { userId, action, undo, status } = confirmed;
    const instance = event.instance.host;
    const known = await deps.postIdFor(instance, status.id as string);
    if (undo) {
      if (known === undefined) return;
      try {
        await deps.interactions.undo(userId, known, action);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      return;
    }
    // An undo goes through whatever the level (it removes what an earlier level stored).
    if (!(deps.privacy ?? UNWIRED_PRIVACY).allowanceFor(userId).storeInteractions) return;
    const postId = known ?? (deps.mayStore(status) ? await deps.storeStatus(instance, status) : undefined);
    if (postId === undefined) return;
    await deps.interactions.record({ userId, postId, actionType: action, context: { source: 'proxy' } });
  };
}
