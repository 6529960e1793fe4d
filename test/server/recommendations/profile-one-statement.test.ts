/**
 * A cold profile's five reads (affinities, interest vector, interacted posts, feedback posts,
 * preferences) are one statement (server/platform/db/user-columns.ts), on either backend: it
 * gives what the reads one by one give, for a user with all five, with only preferences, with
 * none of them, and after the user's erasure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { buildProfileFromStored, DEFAULT_PREFERENCES, type UserProfile } from '../../../src/ranking/index.js';
import type { Database } from '../../../server/platform/db/database.js';
import { seedDemo } from '../../../server/demo/demo.seed.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { InFlightRequests } from '../../../server/privacy/in-flight-requests.js';
import { PrivacyErasureService } from '../../../server/privacy/privacy-erasure.service.js';
import { createPrivacyPolicy } from '../../../server/privacy/privacy-policy.service.js';
import { loadRankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { defaultRankingPolicy } from '../../../server/recommendations/default-ranking-policy.js';
import { FeedbackService } from '../../../server/recommendations/feedback.service.js';
import { loadProfile, toUserPreferences, type ProfileSources } from '../../../server/recommendations/profile-loader.js';
import { allUserFeedback, findPreferences, upsertPreferences } from '../../../server/recommendations/recommendation.repository.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

const ANCHOR = Date.UTC(2025, 0, 10);
const NOW = ANCHOR + 86_400_000;
let opened: TestDatabase;
let sources: ProfileSources;
/** Statements run through `sources.db` (every read of loadProfile goes through it). */
let statements = 0;

const PREFERENCES = {
  favoured_authors: JSON.stringify(['a1', 'caf\u00e9 "quoted"']),
  muted_authors: JSON.stringify(['a2']),
  favoured_tags: JSON.stringify(['rust']),
  muted_tags: JSON.stringify([]),
  languages: JSON.stringify(['en', 'fr']),
  include_reblogs: 0,
  recommendation_ratio: 0.25,
  allow_sensitive: 1,
  updated_at: new Date(ANCHOR).toISOString(),
};

beforeAll(async () => {
  opened = await openTestDatabase();
  const { db } = opened.database;
  await seedDemo(opened.database, { authors: 10, posts: 120, users: 12, interactions: 400 }, ANCHOR, 5);
  const state = await loadRankingState((limits) => candidatePosts(db, limits));
  const posts = new PostService(db, state);
  const interactions = new InteractionService(db, state, posts);
  const counted: Kysely<Database> = db.withPlugin({
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      statements += 1;
      return Promise.resolve(args.result);
    },
  });
  sources = { db: counted, state, posts, interactions };
  const feedback = new FeedbackService({ ...sources, db }, defaultRankingPolicy);
  const [first, second] = await db.selectFrom('posts').select('id').orderBy('id').limit(2).execute();
  await feedback.feedback('user1', first!.id, 'more', ANCHOR + 60_000);
  await feedback.feedback('user1', second!.id, 'less', ANCHOR + 120_000);
  await upsertPreferences(db, { user_id: 'user1', ...PREFERENCES });
  await upsertPreferences(db, { user_id: 'prefs-only', ...PREFERENCES, include_reblogs: 1, allow_sensitive: 0 });
  await state.reload();
}, 60_000);

afterAll(async () => {
  await opened.close();
});

/** The profile from the five reads one by one (as before they were one statement). */
async function fromSeparateReads(userId: string): Promise<UserProfile> {
  const { db } = opened.database;
  const [affinities, interest, interacted, feedback, preferences] = await Promise.all([
    sources.interactions.affinities(userId),
    sources.interactions.interest(userId),
    sources.interactions.interactedPostIds(userId),
    allUserFeedback(db, userId),
    findPreferences(db, userId),
  ]);
  return buildProfileFromStored({
    userId,
    accountId: userId,
    affinities,
    interest,
    seenPostIds: [...interacted, ...feedback.map((f) => f.post_id)],
    ...(preferences ? { preferences: toUserPreferences(preferences) } : {}),
  });
}

/** Loads `userId`'s cold profile, counting its statements. */
async function coldProfile(userId: string): Promise<{ profile: UserProfile; statements: number }> {
  expect(sources.state.cachedProfile(userId)).toBeUndefined();
  const before = statements;
  const profile = await loadProfile(sources, userId);
  return { profile, statements: statements - before };
}

function expectSameProfile(got: UserProfile, want: UserProfile): void {
  expect(got.interest.entriesAt(NOW)).toEqual(want.interest.entriesAt(NOW));
  expect(got.authorAffinity.entriesAt(NOW)).toEqual(want.authorAffinity.entriesAt(NOW));
  expect(got.tagAffinity.entriesAt(NOW)).toEqual(want.tagAffinity.entriesAt(NOW));
  expect(got.seenPosts).toEqual(want.seenPosts);
  expect(got.signals).toBe(want.signals);
  expect(got.preferences).toEqual(want.preferences);
}

describe('a cold profile read in one statement', () => {
  it('gives what the five reads one by one give, for a user with all five', async () => {
    const { profile, statements: count } = await coldProfile('user1');
    expect(count).toBe(1);
    const separate = await fromSeparateReads('user1');
    expect(profile.interest.size).toBeGreaterThan(0);
    expect(profile.authorAffinity.size).toBeGreaterThan(0);
    expect(profile.seenPosts.size).toBeGreaterThan(2);
    expect(profile.preferences).toEqual({
      favouredAuthors: ['a1', 'caf\u00e9 "quoted"'],
      mutedAuthors: ['a2'],
      favouredTags: ['rust'],
      mutedTags: [],
      languages: ['en', 'fr'],
      includeReblogs: false,
      allowSensitive: true,
    });
    expectSameProfile(profile, separate);
  });

  it('reads every seeded user as the reads one by one do', async () => {
    for (let u = 2; u <= 12; u++) {
      const { profile, statements: count } = await coldProfile(`user${u}`);
      expect(count).toBe(1);
      expectSameProfile(profile, await fromSeparateReads(`user${u}`));
    }
  });

  it('reads preferences without any signal', async () => {
    const { profile } = await coldProfile('prefs-only');
    expect(profile.interest.size).toBe(0);
    expect(profile.seenPosts.size).toBe(0);
    expect(profile.preferences.includeReblogs).toBe(true);
    expect(profile.preferences.allowSensitive).toBe(false);
    expect(profile.preferences.languages).toEqual(['en', 'fr']);
  });

  it('reads an empty profile for a user with none of the five', async () => {
    const { profile, statements: count } = await coldProfile('nobody');
    expect(count).toBe(1);
    expect(profile.interest.size).toBe(0);
    expect(profile.authorAffinity.size).toBe(0);
    expect(profile.tagAffinity.size).toBe(0);
    expect(profile.seenPosts.size).toBe(0);
    expect(profile.signals).toBe(0);
    expect(profile.preferences).toEqual(DEFAULT_PREFERENCES);
  });

  it('reads an empty profile after the user is erased', async () => {
    const { db } = opened.database;
    const policy = await createPrivacyPolicy(db, { defaultLevel: 'full' });
    const erasure = new PrivacyErasureService({ db, policy, inFlight: new InFlightRequests(), ranking: sources.state, tokenCaches: [] });
    expect((await loadProfile(sources, 'user1')).seenPosts.size).toBeGreaterThan(0);
    await erasure.eraseUser('user1');
    const { profile, statements: count } = await coldProfile('user1');
    expect(count).toBe(1);
    expect(profile.interest.size).toBe(0);
    expect(profile.authorAffinity.size).toBe(0);
    expect(profile.seenPosts.size).toBe(0);
    expect(profile.preferences).toEqual(DEFAULT_PREFERENCES);
  });
});
