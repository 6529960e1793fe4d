/**
 * The service as it would have stood at each test user's instant, replayed from the data:
 * the candidate pool the server builds at the cutoff (`new CandidateIndex` of the posts of
 * then, as a reload builds it), then kept up to date through the test period by the same
 * calls the server's ranking state makes on each event (`upsert` for a stored post,
 * `updateCounts` for an interaction), and the counters the simple baselines read. Profiles
 * are built from each user's history by the engine's own `buildUserProfile`; the co-engagement
 * state the collaborative feature reads is kept by the writers' own rule (`CoEngagementReplay`)
 * over every interaction replayed; when asked for, the periodic item–item model
 * (../ranking/item-model.ts) is built once, at the cutoff, from the newest ITEM_MODEL_HISTORY
 * interactions before it, and served beside that state (`collaborative`). Models fitted on the training part (kNN, EASE) are fitted once, at the
 * cutoff, as a nightly batch would be.
 */
import { accountIdOfUser } from '../auth/user-account.js';
import { CandidateIndex, type CandidateIndexOptions } from '../ranking/candidate-index.js';
import { CoEngagement, CoEngagementReplay, type CoEngagementOptions } from '../ranking/co-engagement.js';
import type { CoEngagementReader } from '../ranking/co-engagement.js';
import { collaborativeFetch } from '../ranking/collaborative-fetch.js';
import { collaborativeMatches, MAX_RECENT_POSTS, type CollaborativeMatch } from '../ranking/collaborative.js';
import { fitItemModel, ITEM_MODEL_HISTORY, ItemModel, ModelledCoEngagement, type ItemModelOptions } from '../ranking/item-model.js';
import { buildUserProfile, type UserProfile } from '../ranking/profile.js';
import type { ProfileInteraction } from '../ranking/ranking.types.js';
import { canonicalId, isRecommendable, type EvalInteraction, type EvalPost, type Split, type TestUser } from './dataset.js';

/** The "recently popular" window. */
export const RECENT_WINDOW_HOURS = 6;
const HOUR_MS = 3_600_000;

export class EvalState {
  /** Recommendable original posts of the whole data, oldest first (newer last; equal times: larger id first). */
  readonly catalogue: readonly EvalPost[];
  /** Post id -> position in `catalogue`. */
  readonly position: ReadonlyMap<string, number>;
  /** The candidate pool now. */
  readonly index: CandidateIndex;
  /** The item-to-item co-engagement state now (the collaborative feature's). */
  readonly coEngagement: CoEngagement;
  private readonly coEngagementReplay: CoEngagementReplay;
  /** The periodic item–item model built at the cutoff (undefined: none, too little data or turned off). */
  readonly itemModel: ItemModel | undefined;
  /** What the collaborative feature reads: the model beside the co-engagement state, as the server serves them. */
  readonly collaborative: CoEngagementReader;
  /** Engagements with each catalogue post before now (a reblog's count towards its original). */
  readonly engagements: Int32Array;
  /** Engagements in the RECENT_WINDOW_HOURS before now. */
  readonly recent: Int32Array;
  /** Positions with at least one engagement, in the order they got their first. */
  readonly engaged: number[] = [];
  /** Distinct training users of each catalogue post (novelty's reference, fixed at the cutoff). */
  readonly trainUsersOf: Int32Array;
  /** Users with training interactions. */
  readonly trainUsers: number;
  /** Each user's training engagements as catalogue positions. */
  readonly seen: ReadonlyMap<string, ReadonlySet<number>>;
  private nowMs: number;
  private nextPost = 0;
  private nextInteraction = 0;
  private recentTail = 0;
  private readonly byTime: readonly EvalPost[];
  /** The recommendable posts (reblogs included) by id: what a collaborative fetch can find. */
  private readonly recommendable: ReadonlyMap<string, EvalPost>;
  private readonly counts = new Map<string, { favourites: number; reblogs: number; bookmarks: number }>();
  private readonly profiles = new Map<string, UserProfile>();
  /** Each profile's collaborative matches, and the instant they were computed at (`collaborativeOf`). */
  private readonly matchesOf = new WeakMap<UserProfile, { atMs: number; matches: ReadonlyMap<string, CollaborativeMatch> }>();

  constructor(
    readonly split: Split,
    poolOptions: Partial<CandidateIndexOptions> = {},
    /** The co-engagement state's bounds and pairing window (default: the server's). */
    coEngagementOptions: Partial<CoEngagementOptions> = {},
    /** With options: the periodic item–item model built at the cutoff, beside the state (default: none, the state alone). */
    itemModelOptions?: Partial<ItemModelOptions>,
    /** The model an earlier state on the same split and options built (its `itemModel`): served instead of fitting it again. */
    builtModel?: ItemModel,
  ) {
    this.coEngagement = new CoEngagement(coEngagementOptions);
    this.coEngagementReplay = new CoEngagementReplay(this.coEngagement);
    const model =
      itemModelOptions === undefined
        ? undefined
        : (builtModel ?? new ItemModel(fitItemModel(split.train.slice(-ITEM_MODEL_HISTORY), itemModelOptions).data));
    this.itemModel = model !== undefined && model.size > 0 ? model : undefined;
    this.collaborative = this.itemModel === undefined ? this.coEngagement : new ModelledCoEngagement(this.itemModel, this.coEngagement);
    const posts = [...split.dataset.posts.values()].filter(isRecommendable);
    this.byTime = posts.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    this.catalogue = this.byTime.filter((p) => p.reblogOfId === null);
    this.recommendable = new Map(this.byTime.map((p) => [p.id, p]));
    this.position = new Map(this.catalogue.map((p, i) => [p.id, i]));
    this.engagements = new Int32Array(this.catalogue.length);
    this.recent = new Int32Array(this.catalogue.length);
    const users = this.catalogue.map(() => new Set<string>());
    const seen = new Map<string, Set<number>>();
    for (const i of split.train) {
      const at = this.position.get(canonicalId(split.dataset, i.postId));
      if (at === undefined) continue;
      users[at]!.add(i.userId);
      let set = seen.get(i.userId);
      if (set === undefined) seen.set(i.userId, (set = new Set()));
      set.add(at);
    }
    this.trainUsersOf = Int32Array.from(users, (s) => s.size);
    this.trainUsers = new Set(split.train.map((i) => i.userId)).size;
    this.seen = seen;
    // The pool as a reload at the cutoff builds it: the posts of then, with their counts of then.
    this.nowMs = split.cutoffMs;
    while (this.nextInteraction < split.dataset.interactions.length && this.interactionAt(this.nextInteraction).atMs < this.nowMs) {
      this.count(this.interactionAt(this.nextInteraction++));
    }
    const pooled: EvalPost[] = [];
    while (this.nextPost < this.byTime.length && this.byTime[this.nextPost]!.createdAtMs <= this.nowMs)
      pooled.push(this.withCounts(this.byTime[this.nextPost++]!));
    this.index = new CandidateIndex(pooled, poolOptions);
    // The pool's counts are as of the cutoff, undated: each training interaction's own time, as
    // the server's reload replays its newest stored interactions (RankingState.reload).
    for (const i of split.train) this.index.redate(i.postId, i.action, i.atMs);
    this.slideRecent();
  }

  /** The instant the state stands at. */
  get now(): number {
    return this.nowMs;
  }

  /** Whether a catalogue post exists now. */
  exists(position: number): boolean {
    return (this.catalogue[position]?.createdAtMs ?? Infinity) <= this.nowMs;
  }

  /** Replays the posts and interactions up to `atMs` (posts created at it included, interactions at it not). */
  advanceTo(atMs: number): void {
    if (atMs < this.nowMs) throw new Error('the evaluation replays forward only');
    this.nowMs = atMs;
    const interactions = this.split.dataset.interactions;
    for (;;) {
      const post = this.byTime[this.nextPost];
      const interaction = interactions[this.nextInteraction];
      const postDue = post !== undefined && post.createdAtMs <= atMs;
      const interactionDue = interaction !== undefined && interaction.atMs < atMs;
      if (postDue && (!interactionDue || post.createdAtMs <= interaction.atMs)) {
        this.index.upsert(this.withCounts(post));
        this.nextPost += 1;
      } else if (interactionDue) {
        this.count(interaction);
        const counts = this.counts.get(interaction.postId);
        if (counts !== undefined) this.index.updateCounts(interaction.postId, { ...counts, replies: 0 }, interaction.atMs);
        this.nextInteraction += 1;
      } else break;
    }
    this.slideRecent();
  }

  /** The user's profile as the server holds it at their instant (built once, shared by every candidate). */
  profile(user: TestUser): UserProfile {
    let profile = this.profiles.get(user.userId);
    if (profile === undefined) {
      const interactions: ProfileInteraction[] = user.history.flatMap((i) => {
        const post = this.split.dataset.posts.get(i.postId);
        return post === undefined ? [] : [{ post, action: i.action, createdAtMs: i.atMs }];
      });
      // Each signal in time order, with the pool's idf, as the server applies them as they come.
      profile = buildUserProfile({ userId: user.userId, accountId: accountIdOfUser(user.userId), interactions }, this.index);
      // The recent posts the collaborative feature starts from, newest first, as the server reads them.
      profile.recentPosts = [...new Set(user.history.map((i) => i.postId).reverse())].slice(0, MAX_RECENT_POSTS);
      this.profiles.set(user.userId, profile);
    }
    return profile;
  }

  /**
   * A profile's collaborative matches at this instant (undefined without recent posts), with the
   * posts they ask for held beside the pool (`holdCollaborative`): computed and held once per
   * profile and instant, as the server fetches once per ranking, so every candidate ranked for a
   * user's visit sees the same candidates. (Held once per candidate, a second one fetched the
   * next 50 co-engaged posts: a candidate ranked later saw more than a served list would.)
   */
  collaborativeOf(profile: UserProfile): ReadonlyMap<string, CollaborativeMatch> | undefined {
    const recent = profile.recentPosts;
    if (recent === undefined || recent.length === 0) return undefined;
    const known = this.matchesOf.get(profile);
    if (known !== undefined && known.atMs === this.nowMs) return known.matches;
    const matches = collaborativeMatches(this.collaborative, recent);
    this.holdCollaborative(recent, matches);
    this.matchesOf.set(profile, { atMs: this.nowMs, matches });
    return matches;
  }

  /**
   * Holds beside the pool the posts a ranking that weighs the collaborative feature asks for,
   * as the server fetches them from its database (`collaborativeFetch`: the strongest
   * co-engaged posts outside the pool, at most COLLABORATIVE_FETCH_LIMIT per ranking, the least
   * recently asked for dropped beyond the pool's `maxCollaborative`), with their counts of now.
   * A post not created yet is no candidate.
   */
  private holdCollaborative(recentPosts: readonly string[], matches: ReadonlyMap<string, CollaborativeMatch>): void {
    const availableNow = (id: string): boolean => (this.recommendable.get(id)?.createdAtMs ?? Infinity) <= this.nowMs;
    const { absent, warm } = collaborativeFetch(this.index, recentPosts, matches, (id) => !availableNow(id));
    this.index.addCollaborative(warm);
    this.index.addCollaborative(absent.map((id) => this.withCounts(this.recommendable.get(id)!)));
  }

  /** Forgets a user's profile (the evaluation asks for each user once). */
  release(user: TestUser): void {
    this.profiles.delete(user.userId);
  }

  private interactionAt(i: number): EvalInteraction {
    return this.split.dataset.interactions[i] as EvalInteraction;
  }

  private withCounts(post: EvalPost): EvalPost {
    const c = this.counts.get(post.id);
    return { ...post, favourites: c?.favourites ?? 0, reblogs: c?.reblogs ?? 0, replies: 0, bookmarks: c?.bookmarks ?? 0 };
  }

  private count(i: EvalInteraction): void {
    this.coEngagementReplay.add({ userId: i.userId, postId: i.postId });
    const c = this.counts.get(i.postId) ?? { favourites: 0, reblogs: 0, bookmarks: 0 };
    if (i.action === 'favorite') c.favourites += 1;
    else if (i.action === 'reblog') c.reblogs += 1;
    else c.bookmarks += 1;
    this.counts.set(i.postId, c);
    const at = this.position.get(canonicalId(this.split.dataset, i.postId));
    if (at === undefined) return;
    if (this.engagements[at] === 0) this.engaged.push(at);
    this.engagements[at] = (this.engagements[at] as number) + 1;
  }

  /** Moves the recent window to end now: counts the interactions entering it, uncounts those leaving. */
  private slideRecent(): void {
    const interactions = this.split.dataset.interactions;
    const since = this.nowMs - RECENT_WINDOW_HOURS * HOUR_MS;
    while (this.recentTail < this.nextInteraction && this.interactionAt(this.recentTail).atMs < since) this.recentTail += 1;
    this.recent.fill(0);
    for (let i = this.recentTail; i < this.nextInteraction; i++) {
      const at = this.position.get(canonicalId(this.split.dataset, (interactions[i] as EvalInteraction).postId));
      if (at !== undefined) this.recent[at] = (this.recent[at] as number) + 1;
    }
  }
}
