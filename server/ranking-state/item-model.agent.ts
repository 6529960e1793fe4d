/**
 * The periodic item–item model served beside the co-engagement state (src/ranking/item-model.ts;
 * docs/ranking.md, "The periodic item–item model"). Two agents:
 * - `item_model` (cluster: one instance at a time) reads the newest ITEM_MODEL_HISTORY
 *   interactions, fits EASE and the cosine lists in a child process (item-model.job.ts) when there are at least
 *   `minInteractions`, and stores it in `item_models` (one row), unless an erasure came while it
 *   read or built (then the next run does it again, without the erased user). A stored model
 *   younger than the interval is not rebuilt (a restart costs one read of the row's id).
 * - `item_model_load` (every instance) serves the stored model: loads it when its id changed,
 *   stops serving when the row is gone (an erasure deleted it).
 * An erasure drops the model from memory on every instance (the fanned-out `userErased`) and
 * deletes the stored row before it answers (RankingState.userErased).
 * RECSVC_ITEM_MODEL_POSTS (0: off), RECSVC_ITEM_MODEL_COSINE_POSTS, RECSVC_ITEM_MODEL_INTERVAL_SECONDS
 * and RECSVC_ITEM_MODEL_MIN_INTERACTIONS set it.
 */
import type { Kysely } from 'kysely';
import {
  DEFAULT_ITEM_MODEL_OPTIONS,
  ITEM_MODEL_HISTORY,
  itemModelFromBytes,
  MAX_COSINE_ITEMS,
  MAX_ITEM_MODEL_ITEMS,
  type ItemModelOptions,
} from '../../src/ranking/item-model.js';
import type { Agent } from '../platform/agents/agent.types.js';
import type { Database } from '../platform/db/database.js';
import type { RankingState } from './ranking-state.service.js';
import { runItemModelBuild } from './item-model.job.js';
import { dropItemModels, loadItemModel, loadItemModelPairs, storedItemModel, storeItemModel } from './item-model.repository.js';
import { FOLLOW_UP_WINDOW_MS } from './ranking-fit.agent.js';
import { countInteractions } from './ranking-fit.repository.js';

/**
 * A stored model is rebuilt before its interval is up when the interactions it could be built
 * from grew by this share (an import, a burst of activity): as the ranking fit's trigger.
 */
const REBUILD_GROWTH = 0.2;
/** New interactions that make a young model's follow-up worth building (as the ranking fit's, FOLLOW_UP_WINDOW_MS). */
const FOLLOW_UP_MIN_NEW = 500;

export interface ItemModelSettings {
  /** The most engaged posts the model is fitted over (0: no model). */
  readonly posts: number;
  /** Seconds between builds. */
  readonly intervalSeconds: number;
  /** Interactions (distinct user–post pairs) needed before a model is built. */
  readonly minInteractions: number;
  /** The most engaged posts given cosine neighbours beside EASE's (0: EASE alone). */
  readonly cosinePosts: number;
}

export const DEFAULT_ITEM_MODEL_SETTINGS: ItemModelSettings = {
  posts: DEFAULT_ITEM_MODEL_OPTIONS.maxItems,
  intervalSeconds: 3_600,
  minInteractions: DEFAULT_ITEM_MODEL_OPTIONS.minPairs,
  cosinePosts: DEFAULT_ITEM_MODEL_OPTIONS.cosineItems,
};

/** The settings of the environment; a bad value throws a one-line message naming the variable. */
export function readItemModelSettings(env: Record<string, string | undefined> = process.env): ItemModelSettings {
  const whole = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const text = env[name]?.trim();
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`${name}: expected a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`);
    return value;
  };
  return {
    posts: whole('RECSVC_ITEM_MODEL_POSTS', DEFAULT_ITEM_MODEL_SETTINGS.posts, 0, MAX_ITEM_MODEL_ITEMS),
    intervalSeconds: whole('RECSVC_ITEM_MODEL_INTERVAL_SECONDS', DEFAULT_ITEM_MODEL_SETTINGS.intervalSeconds, 1),
    minInteractions: whole('RECSVC_ITEM_MODEL_MIN_INTERACTIONS', DEFAULT_ITEM_MODEL_SETTINGS.minInteractions, 0),
    cosinePosts: whole('RECSVC_ITEM_MODEL_COSINE_POSTS', DEFAULT_ITEM_MODEL_SETTINGS.cosinePosts, 0, MAX_COSINE_ITEMS),
  };
}

/** What a build fits with these settings (the ranking fit ranks with the same model: ranking-fit.feature.ts). */
export function itemModelOptionsOf(settings: ItemModelSettings): Partial<ItemModelOptions> {
  return { maxItems: settings.posts, minPairs: settings.minInteractions, cosineItems: settings.cosinePosts };
}

export interface ItemModelDeps {
  readonly db: Kysely<Database>;
  readonly state: Pick<RankingState, 'erasuresSeen' | 'itemModelId' | 'setItemModel' | 'dropItemModel'>;
  /** Where the build reads the interactions itself (DatabaseHandle.sharedTarget); undefined: this process reads and sends them. */
  readonly sharedTarget?: string | undefined;
}

/**
 * `item_model`: builds and stores the model when none is stored, the stored one is older than
 * the interval, or the interactions grew by a fifth since it was built (REBUILD_GROWTH; the
 * ranking fit's trigger runs it right after an import, before the fit).
 */
export function itemModelAgent(
  deps: ItemModelDeps,
  settings: ItemModelSettings,
  options: {
    workerScript?: URL | null | undefined;
    log?: ((line: string) => void) | undefined;
    /** New interactions that make a young model's follow-up worth building (default FOLLOW_UP_MIN_NEW). */
    followUpMinNew?: number;
  } = {},
): Agent {
  const followUpMinNew = options.followUpMinNew ?? FOLLOW_UP_MIN_NEW;
  // The stored interactions when this process built each model, and which were follow-ups of
  // one built while an import went on (never followed up again).
  const rowsAtBuild = new Map<string, number>();
  const followUps = new Set<string>();
  return {
    name: 'item_model',
    description: 'builds the periodic item–item model (EASE) from the newest interactions, off the serving process',
    intervalSeconds: settings.intervalSeconds,
    initialDelaySeconds: Math.min(settings.intervalSeconds, 10),
    timeoutSeconds: 900,
    scope: 'cluster',
    async run({ signal, now }) {
      const stored = await storedItemModel(deps.db);
      let followUp = false;
      if (stored !== undefined && now() - stored.createdAtMs < settings.intervalSeconds * 1000 * 0.9) {
        const available = Math.min(await countInteractions(deps.db), ITEM_MODEL_HISTORY);
        // Built while an import went on (see FOLLOW_UP_WINDOW_MS): once more with all of it.
        const rows = rowsAtBuild.get(stored.id);
        followUp =
          rows !== undefined &&
          !followUps.has(stored.id) &&
          now() - stored.createdAtMs < FOLLOW_UP_WINDOW_MS &&
          available - rows >= followUpMinNew;
        if (available < stored.interactions * (1 + REBUILD_GROWTH) && !followUp)
          return { summary: `not due: model ${stored.id} built from ${stored.interactions} interactions` };
      }
      const erasures = deps.state.erasuresSeen;
      const startedAtMs = now();
      const rowsNow = Math.min(await countInteractions(deps.db), ITEM_MODEL_HISTORY);
      if (rowsNow < settings.minInteractions)
        return { summary: `insufficient: ${rowsNow} interactions (at least ${settings.minInteractions} needed)` };
      // Over a database another process can open, the build reads the interactions itself.
      const source =
        deps.sharedTarget === undefined
          ? { pairs: await loadItemModelPairs(deps.db, ITEM_MODEL_HISTORY) }
          : { database: { target: deps.sharedTarget, limit: ITEM_MODEL_HISTORY } };
      const { build, where } = await runItemModelBuild({ ...source, options: itemModelOptionsOf(settings) }, signal, options.workerScript);
      const seconds = ((now() - startedAtMs) / 1000).toFixed(1);
      if (build.posts === 0) return { summary: `insufficient: ${build.pairs} distinct user–post pairs, no post engaged twice` };
      if (deps.state.erasuresSeen !== erasures) return { summary: 'discarded: an erasure came while it was built (the next run rebuilds)' };
      const id = await storeItemModel(deps.db, {
        createdAtMs: startedAtMs,
        interactions: build.read,
        posts: build.posts,
        entries: build.entries,
        bytes: build.bytes,
      });
      if (deps.state.erasuresSeen !== erasures) {
        await dropItemModels(deps.db);
        return { summary: 'discarded: an erasure came while it was stored (the next run rebuilds)' };
      }
      rowsAtBuild.set(id, rowsNow);
      if (followUp) followUps.add(id);
      deps.state.setItemModel(id, itemModelFromBytes(build.bytes));
      const summary = `model ${id}: ${build.posts} posts, ${build.entries} neighbours from ${build.read} interactions in ${seconds} s (${where}), ${build.bytes.length} bytes`;
      options.log?.(`item_model ${summary}`);
      return { summary, details: { posts: build.posts, entries: build.entries, interactions: build.read, bytes: build.bytes.length } };
    },
  };
}

/** `item_model_load`: serves the stored model on this instance (loads a new one, drops a deleted one). */
export function itemModelLoadAgent(deps: ItemModelDeps, options: { intervalSeconds: number }): Agent {
  return {
    name: 'item_model_load',
    description: 'serves the newest stored item–item model on this instance',
    intervalSeconds: options.intervalSeconds,
    initialDelaySeconds: 1,
    scope: 'instance',
    async run() {
      const stored = await storedItemModel(deps.db);
      if (stored === undefined) {
        deps.state.dropItemModel();
        return { summary: 'no model stored: the co-engagement state alone' };
      }
      if (stored.id === deps.state.itemModelId) return { summary: `serving model ${stored.id}` };
      const erasures = deps.state.erasuresSeen;
      const model = await loadItemModel(deps.db, stored.id);
      // An erasure while it was read: the row is being deleted, and this copy is not served.
      if (model === undefined || deps.state.erasuresSeen !== erasures) return { summary: `model ${stored.id} gone while read` };
      deps.state.setItemModel(stored.id, model);
      return {
        summary: `loaded model ${stored.id}: ${model.size} posts, ${model.entries} neighbours, ~${model.estimatedBytes()} bytes held`,
      };
    },
  };
}
