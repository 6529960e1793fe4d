/**
 * Proxied favourite/reblog/bookmark (and undo) calls logged as interactions once the
 * Mastodon test instance confirms them: the interaction and post sides are recording fakes
 * with the InteractionService's contract (record throws NotFoundError for an unknown post).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import { interactionLogger, type LoggedAction } from '../../../server/proxy/proxy-interactions.js';
import { registerProxy } from '../../../server/proxy/proxy.feature.js';
import { createSocialServices, type SocialServices } from '../../../server/platform/social/social.service.js';
import { DEFAULT_SOCIAL_OPTIONS } from '../../../server/platform/social/social-options.js';
import { startMastodonInstance, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let instance: MastodonTestInstance;
let social: SocialServices;
let t: TestApp;
let stored: Map<string, Record<string, unknown>>;
let interactions: Map<string, { userId: string; postId: string; action: LoggedAction }>;
let allowStore: boolean;

const key = (userId: string, postId: string, action: string): string => `${userId} ${postId} ${action}`;

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = createSocialServices({ ...DEFAULT_SOCIAL_OPTIONS, allowInsecure: true, requestTimeoutMs: 3_000 });
  const onForwarded = interactionLogger({
    mayStore: () => allowStore,
    // The instance's ids name stored posts one to one here (the mapping is PostService's, tested with it).
    async postIdFor(_instance, localId) {
      return stored.has(localId) ? localId : undefined;
    },
    async storeStatus(_instance, status) {
      stored.set(status.id as string, status);
      return status.id as string;
    },
    interactions: {
      async record({ userId, postId, actionType }) {
        if (!stored.has(postId)) throw new NotFoundError(`No post with id ${postId}`);
        interactions.set(key(userId, postId, actionType), { userId, postId, action: actionType });
      },
      async undo(userId, postId, actionType) {
        if (!interactions.delete(key(userId, postId, actionType))) throw new NotFoundError('none');
      },
    },
  });
  t = await createTestApp({
    ...withSocial(social),
    // The app's own proxy left out: this one is registered with the test's doubles.
    proxy: false,
    configure: async (app) => {
      await registerProxy(app, { social }, { dropIn: true, onForwarded });
    },
  });
});

beforeEach(() => {
  stored = new Map();
  interactions = new Map();
  allowStore = true;
  instance.clearFaults();
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

const headers = (): Record<string, string> => ({ authorization: `Bearer ${instance.token}`, 'x-social-instance': instance.host });
const aliceId = (): string => `${instance.accountIdOf(instance.token)}@${instance.host}`;

function publicStatusId(skip = 0): string {
  const statuses = instance.publicTimeline().filter((s) => !s.reblog && s.visibility === 'public' && s.favourited !== true);
  return String(statuses[skip]!.id);
}

describe('interactions through the proxy', () => {
  it('logs a confirmed favourite (storing the post first, as the instance answered: PostService keeps its own counters) and its undo', async () => {
    const id = publicStatusId();
    const before = instance.status(id)!.favourites_count as number;
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/favourite`, headers: headers() });
    expect(response.statusCode).toBe(200);
    expect(stored.get(id)?.favourites_count).toBe(before + 1);
    expect([...interactions.values()]).toEqual([{ userId: aliceId(), postId: id, action: 'favorite' }]);
    const undo = await t.app.inject({ method: 'POST', url: `/api/v1/statuses/${id}/unfavourite`, headers: headers() });
    expect(undo.statusCode).toBe(200);
    expect(interactions.size).toBe(0);
  });

  it('logs reblogs on the original and bookmarks, in drop-in mode too', async () => {
    const id = publicStatusId(1);
    const reblog = await t.app.inject({ method: 'POST', url: `/api/v1/statuses/${id}/reblog`, headers: headers() });
    expect(reblog.statusCode).toBe(200);
    const bookmark = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/bookmark`, headers: headers() });
    expect(bookmark.statusCode).toBe(200);
    expect([...interactions.values()].map((i) => [i.postId, i.action]).sort()).toEqual([
      [id, 'bookmark'],
      [id, 'reblog'],
    ]);
    await t.app.inject({ method: 'POST', url: `/api/v1/statuses/${id}/unreblog`, headers: headers() });
    await t.app.inject({ method: 'POST', url: `/api/v1/statuses/${id}/unbookmark`, headers: headers() });
    expect(interactions.size).toBe(0);
  });

  it('logs nothing the instance did not confirm, nor a status that may not be stored', async () => {
    const id = publicStatusId(2);
    instance.fault({ kind: 'status', status: 500, path: `/api/v1/statuses/${id}/favourite`, times: 1 });
    const failed = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/favourite`, headers: headers() });
    expect(failed.statusCode).toBe(500);
    const missing = await t.app.inject({ method: 'POST', url: '/api/v1/proxy/api/v1/statuses/1/favourite', headers: headers() });
    expect(missing.statusCode).toBe(404);
    expect(interactions.size).toBe(0);
    allowStore = false;
    const refused = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/favourite`, headers: headers() });
    expect(refused.statusCode).toBe(200);
    expect(stored.size).toBe(0);
    expect(interactions.size).toBe(0);
    await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/unfavourite`, headers: headers() });
  });
});
