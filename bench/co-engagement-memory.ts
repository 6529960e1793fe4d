/**
 * Memory and time of the co-engagement state (docs/ranking.md, Memory) on the demo generator's
 * data at the large benchmark's sizes (100,000 users, 100,000 posts by 5,000 authors,
 * 2,000,000 interactions; bench/README.md): the interactions are replayed in time order through
 * the writers' rule, and the V8 heap is measured after a full GC before and after.
 * Run: node --expose-gc node_modules/vite-node/vite-node.mjs bench/co-engagement-memory.ts
 * (CO_USERS, CO_POSTS, CO_INTERACTIONS, CO_HISTORY override the sizes; CO_MB, CO_NEIGHBOURS and
 * CO_WINDOW the state's byte bound, neighbours kept per post and pairing window, as
 * RECSVC_COENGAGEMENT_MB, _NEIGHBOURS and _WINDOW do: default the deployment's 64 MB, 200, 16).
 */
import { generateDemoData } from '../server/demo/demo-generator.js';
import { collaborativeMatches, CoEngagement, CoEngagementReplay, DEFAULT_CO_ENGAGEMENT_OPTIONS } from '../src/ranking/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const users = Number(process.env.CO_USERS ?? 100_000);
const posts = Number(process.env.CO_POSTS ?? 100_000);
const interactions = Number(process.env.CO_INTERACTIONS ?? 2_000_000);
const history = Number(process.env.CO_HISTORY ?? 200_000);
const options = {
  ...DEFAULT_CO_ENGAGEMENT_OPTIONS,
  ...(process.env.CO_MB === undefined ? {} : { maxBytes: Number(process.env.CO_MB) * 1024 * 1024 }),
  ...(process.env.CO_NEIGHBOURS === undefined ? {} : { neighboursPerPost: Number(process.env.CO_NEIGHBOURS) }),
  ...(process.env.CO_WINDOW === undefined ? {} : { window: Number(process.env.CO_WINDOW) }),
};
const data = generateDemoData({ users, posts, authors: Math.round(posts / 20), interactions, days: 7 }, Date.UTC(2026, 10, 27));
const events = data.interactions
  .map((i) => ({ userId: i.userId, postId: i.postId, at: i.createdAtMs, id: i.id }))
  .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
data.interactions.length = 0;

/** V8 heap and array buffers (the state's typed arrays live outside the heap). */
const heap = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

function replay(slice: typeof events): { state: CoEngagement; ms: number; heapMb: number } {
  const before = heap();
  const started = performance.now();
  const state = new CoEngagement(options);
  const replayer = new CoEngagementReplay(state);
  for (const e of slice) replayer.add(e);
  const ms = Math.round(performance.now() - started);
  // The replay's per-user windows go with the replayer: measured without them.
  const heapMb = mb(heap() - before);
  return { state, ms, heapMb };
}

const window = events.slice(-history);
const rebuilt = replay(window);
const full = replay(events);
// The collaborative feature of users with 20 recent posts each (taken from the stream).
const recents = Array.from({ length: 2000 }, (_, u) => events.slice(u * 20, u * 20 + 20).map((e) => e.postId));
const started = performance.now();
let matched = 0;
for (const recent of recents) matched += collaborativeMatches(full.state, recent).size;
const sample = recents.length;
const perUserMs = (performance.now() - started) / sample;
console.log(
  JSON.stringify({
    users,
    posts,
    interactions: events.length,
    options,
    rebuild: {
      interactions: window.length,
      ms: rebuilt.ms,
      posts_kept: rebuilt.state.size,
      heap_mb: rebuilt.heapMb,
      estimated_mb: mb(rebuilt.state.estimatedBytes()),
    },
    all: {
      interactions: events.length,
      ms: full.ms,
      posts_kept: full.state.size,
      heap_mb: full.heapMb,
      estimated_mb: mb(full.state.estimatedBytes()),
    },
    per_interaction_us: Math.round(((full.ms * 1000) / events.length) * 100) / 100,
    matches_per_user: Math.round(matched / sample),
    collaborative_matches_ms: Math.round(perUserMs * 1000) / 1000,
  }),
);
