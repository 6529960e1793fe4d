/**
 * Demo data for `serve --demo` and the benchmark: generated deterministically and written
 * in one transaction through the features' own write paths (the posts' writeStatuses, the
 * interactions' bulk load), which keep post counters and stored affinities consistent
 * with the interactions. The ranking state picks the posts up when the app is built.
 */
import { inBulkLoadTransaction } from '../platform/db/bulk-insert.js';
import type { DatabaseHandle } from '../platform/db/connection.js';
import { lockForTransaction } from '../platform/db/transaction-lock.js';
import { startImport } from '../interactions/interaction.service.js';
import { hasPosts, writeAccounts, writeStatuses } from '../posts/post.service.js';
import { recordStartingPoint } from '../ranking-state/ranking-fit.feature.js';
import { describeRankingDefault, SHIPPED_RANKING_DEFAULT, type RankingDefault } from '../../src/ranking/ranking-default.js';
import { DEFAULT_DEMO_SIZES, generateDemoData, type DemoSizes } from './demo-generator.js';
import { demoAccounts, demoInteractions, demoStatuses } from './demo-statuses.js';

export { DEFAULT_DEMO_SIZES, type DemoSizes } from './demo-generator.js';

/**
 * The default ranking `serve --demo` starts from: the shipped point with the collaborative
 * signal weighed 1 (0.3 until engagement was counted at the community's pace: on the demo's
 * feed-like data the day's rising posts then outrank the co-engaged ones at 0.3), so the demo shows it ("Liked by people who liked @x's post about #y"). A
 * fresh deployment starts at the shipped point and its `ranking_fit` agent adds the weight
 * where its own data show it helps (docs/demo.md says why the demo does not wait for that).
 */
export const DEMO_RANKING_DEFAULT: RankingDefault = Object.freeze({ ...SHIPPED_RANKING_DEFAULT, collaborative: 1 });

export interface DemoSeedResult {
  authors: number;
  posts: number;
  users: number;
  interactions: number;
}

/**
 * Seeds the deterministic demo data set when the database holds no posts yet. Instances
 * starting together on one empty database seed it once: the others wait for that seeding's
 * transaction, then find its posts.
 */
export async function seedDemoIfEmpty(
  database: DatabaseHandle,
  log: (message: string) => void,
  sizes: Partial<DemoSizes> = {},
): Promise<void> {
  const nothing = () => log('demo data: the database already has posts; nothing seeded');
  if (await hasPosts(database.db)) return nothing();
  const started = Date.now();
  // Instances starting together open the file meanwhile, and a serving process's checkpointer holds it: the WAL stays.
  const result = await writeDemo(database, { ...DEFAULT_DEMO_SIZES, ...sizes }, Date.now(), undefined, {
    onlyIfEmpty: true,
    rollbackJournal: false,
    startingPoint: true,
  });
  if (result === undefined) return nothing();
  log(
    `demo data: ${result.posts} posts by ${result.authors} authors, ${result.interactions} interactions by ${result.users} users (user1…user${result.users}) in ${Date.now() - started} ms; default ranking from ${describeRankingDefault(DEMO_RANKING_DEFAULT)} (docs/demo.md)`,
  );
}

/** Writes a demo data set of the given sizes (anchored at `anchorMs`) in one transaction. */
export async function seedDemo(
  database: DatabaseHandle,
  sizes: Partial<DemoSizes> = {},
  anchorMs = Date.now(),
  seed?: number,
): Promise<DemoSeedResult> {
  const result = await writeDemo(database, { ...DEFAULT_DEMO_SIZES, ...sizes }, anchorMs, seed, {
    onlyIfEmpty: false,
    rollbackJournal: true,
    startingPoint: false,
  });
  if (result === undefined) throw new Error('demo data: nothing written');
  return result;
}

/** The data set written under the seeding lock; undefined when `onlyIfEmpty` found posts there. */
async function writeDemo(
  database: DatabaseHandle,
  sizes: DemoSizes,
  anchorMs: number,
  seed: number | undefined,
  options: { onlyIfEmpty: boolean; rollbackJournal: boolean; startingPoint: boolean },
): Promise<DemoSeedResult | undefined> {
  const data = generateDemoData(sizes, anchorMs, seed);
  // The interactions' bulk load looks up every post they refer to before writing a row.
  const load = { rollbackJournal: options.rollbackJournal, foreignKeysChecked: ['interactions'], staging: true };
  const written = await inBulkLoadTransaction(
    database.db,
    async (trx, staging) => {
      await lockForTransaction(trx, 'demo-seed');
      if (options.onlyIfEmpty && (await hasPosts(trx))) return false;
      // With a staging file, a worker builds the interactions table while the posts are written.
      const interactions = await startImport(trx, demoInteractions(data), staging);
      try {
        const accounts = demoAccounts(data, anchorMs);
        await writeAccounts(trx, accounts, anchorMs, { keepOriginals: false });
        await writeStatuses(trx, demoStatuses(data, accounts), anchorMs, { keepOriginals: false });
      } catch (error) {
        await interactions.cancel();
        throw error;
      }
      await interactions.finish(anchorMs);
      if (options.startingPoint)
        await recordStartingPoint(trx, DEMO_RANKING_DEFAULT, {
          atMs: anchorMs,
          interactions: data.interactions.length,
          source: 'the demo data set (serve --demo; docs/demo.md)',
        });
      return true;
    },
    load,
  );
  if (!written) return undefined;
  return { authors: data.authors.length, posts: data.posts.length, users: data.users.length, interactions: data.interactions.length };
}
