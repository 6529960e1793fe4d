/** `recsvc eval` as a child process: import files, a service database, the reports, the gate's exit codes and input errors. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { FIT_MAX_INTERACTIONS, FIT_NEWEST_POSTS } from '../../server/ranking-state/ranking-fit.repository.js';
import { generateSynthetic, generatorOptions, SYNTHETIC_KINDS, syntheticOptions } from '../../src/evaluation/generate.js';
import type { ExperimentCreate } from '../../src/experiments/experiment.schema.js';
import { validateExperiment } from '../../src/experiments/validate-experiment.js';
import { toJsonLines } from '../../src/evaluation/import-format.js';
import { BIN, runCli } from '../helpers/cli.js';
import { hasScript, terminal } from './support/terminal.js';
import { interactionsInTimeOrder, storeSynthetic } from '../helpers/eval-store.js';

const dir = mkdtempSync(join(tmpdir(), 'recsvc-eval-'));
const data = generateSynthetic(generatorOptions('catalogue', { users: 250, authors: 50, posts: 400, seed: 5 }));
const posts = join(dir, 'posts.jsonl');
const interactions = join(dir, 'interactions.jsonl');
const FAST = ['--samples', '50', '--baselines', 'popularity,hot,item_knn'];

interface EvalJson {
  source: string;
  k: number;
  data: { evaluated_users: number };
  groups: {
    group: string;
    users: number;
    rankers: { name: string; metrics: Record<string, { value: number; ci_low: number; ci_high: number }> }[];
  }[];
  gate?: { verdict: string; cases: { candidate: string; baseline: string; verdict: string }[] };
  tuned?: { variant: { name: string; algorithm_config: { weights: Record<string, number> } } };
}

beforeAll(() => {
  writeFileSync(posts, toJsonLines(data.statuses));
  writeFileSync(interactions, toJsonLines(data.interactions));
});

describe('recsvc eval', () => {
  it('evaluates import files with every report, and the gate decides the exit code', async () => {
    const candidate = join(dir, 'authors.json');
    writeFileSync(candidate, JSON.stringify({ author_preference: 0.7, content_engagement: 0.1, recency: 0.1, semantic_similarity: 0.1 }));
    const [html, junit, md] = ['report.html', 'eval.xml', 'summary.md'].map((f) => join(dir, f)) as [string, string, string];
    const result = await runCli([
      'eval',
      '--posts',
      posts,
      '--interactions',
      interactions,
      ...FAST,
      '--candidate',
      `authors=${candidate}`,
      '--gate',
      '--html',
      html,
      '--junit',
      junit,
      '--summary-md',
      md,
      '--json',
    ]);
    const report = JSON.parse(result.stdout) as EvalJson;
    expect(report.groups.map((g) => g.group)).toEqual(['with_history', 'without_history', 'all']);
    const withHistory = report.groups[0]!;
    expect(withHistory.rankers.map((r) => r.name)).toEqual(['default', 'authors', 'popularity', 'hot', 'item_knn']);
    expect(Object.keys(withHistory.rankers[0]!.metrics)).toEqual(['ndcg', 'recall', 'hit_rate', 'mrr', 'novelty', 'coverage']);
    // The gate's verdict is the exit code: 1 on a failure, 4 when only undecided, 0 when all pass.
    const verdict = report.gate!.verdict;
    expect(result.code, result.stderr).toBe(verdict === 'fail' ? 1 : verdict === 'inconclusive' ? 4 : 0);
    expect(report.gate!.cases.some((c) => c.candidate === 'authors' && c.baseline === 'item_knn')).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="recsvc eval"');
    expect((xml.match(/<testcase /g) ?? []).length).toBe(report.gate!.cases.length);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Content-Security-Policy');
    expect(page).not.toContain('<script');
    expect(page).toContain('<svg');
    expect(readFileSync(md, 'utf8')).toMatch(/^## recsvc eval: /);
  });

  it('prints tables, and a tuned variant ready to create', async () => {
    const experimentFile = join(dir, 'experiment.json');
    const result = await runCli([
      'eval',
      '--posts',
      posts,
      '--interactions',
      interactions,
      ...FAST,
      '--tune',
      '--tune-users',
      '40',
      '--write-experiment',
      experimentFile,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as EvalJson;
    // The experiment written for `recsvc experiment create --file` passes the server's own validation.
    const experiment = JSON.parse(readFileSync(experimentFile, 'utf8')) as ExperimentCreate;
    expect(validateExperiment(experiment)).toEqual([]);
    expect(experiment.variants.map((v) => [v.name, v.is_control])).toEqual([
      ['control', true],
      ['tuned', false],
    ]);
    const weights = report.tuned!.variant.algorithm_config.weights;
    expect(Object.values(weights).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(report.groups[0]!.rankers.map((r) => r.name)).toContain('tuned');
    const text = await runCli(['eval', '--posts', posts, '--interactions', interactions, ...FAST]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Users with history \(\d+\), best baseline/);
    expect(text.stdout).toMatch(/^default +0\.\d{3} \[/m);
    expect(text.stdout).toContain('Default (candidate "default", before any fit): collaborative 1, recency half-life 8 h');
    // EASE over fewer posts than were engaged is said to be below its strength; over all of them, nothing is said.
    const [truncated, whole] = await Promise.all([
      runCli(['eval', '--posts', posts, '--interactions', interactions, ...FAST, '--baselines', 'ease', '--ease-max-items', '20']),
      runCli(['eval', '--posts', posts, '--interactions', interactions, ...FAST, '--baselines', 'ease', '--ease-max-items', '3000']),
    ]);
    expect(truncated.code, truncated.stderr).toBe(0);
    expect(truncated.stderr).toMatch(/warning: ease is fitted over the 20 most engaged of \d+ engaged posts.*--ease-max-items \d+ holds/);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).not.toContain('ease is fitted over');
  });

  it('the collaborative feature reads the item model built at the cutoff (--no-item-model: the state alone); a ranking without collaborative is unchanged', async () => {
    const collaborative = join(dir, 'collaborative.json');
    writeFileSync(
      collaborative,
      JSON.stringify({ author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 1 }),
    );
    // The shipped four weights as a candidate: no collaborative weight.
    const four = join(dir, 'four.json');
    writeFileSync(four, JSON.stringify({ author_preference: 0.2, content_engagement: 0.35, recency: 0.35, semantic_similarity: 0.1 }));
    const args = ['eval', '--posts', posts, '--interactions', interactions, ...FAST];
    const candidates = ['--candidate', `collab=${collaborative}`, '--candidate', `four=${four}`, '--json'];
    const [without, withModel] = await Promise.all([
      runCli([...args, ...candidates, '--no-item-model']),
      runCli([...args, ...candidates, '--item-model-posts', '200']),
    ]);
    expect(without.code, without.stderr).toBe(0);
    expect(withModel.code, withModel.stderr).toBe(0);
    const ndcg = (stdout: string, name: string): number =>
      (JSON.parse(stdout) as EvalJson).groups[0]!.rankers.find((r) => r.name === name)!.metrics.ndcg!.value;
    expect(ndcg(withModel.stdout, 'four')).toBe(ndcg(without.stdout, 'four'));
    expect(ndcg(withModel.stdout, 'collab')).not.toBe(ndcg(without.stdout, 'collab'));
    // This history is a catalogue (engaged with months after each post): its default starts at
    // collaborative 1 (docs/ranking.md, "Before the first fit"), so it reads the model too.
    expect(ndcg(withModel.stdout, 'default')).not.toBe(ndcg(without.stdout, 'default'));
    expect((JSON.parse(withModel.stdout) as { default: unknown }).default).toMatchObject({
      catalogue: true,
      point: { collaborative: 1, recency_half_life_hours: 8, content_engagement: 0.1, per_author_cap: 20 },
    });
  });

  it("reads the service's database read-only", async () => {
    const path = join(dir, 'recsvc.db');
    const database = openSqlite(path);
    await migrateToLatest(database.db);
    await storeSynthetic(database.db, data);
    await database.close();
    // A rollback-journal file: a writing open would switch it to WAL (the header's bytes 18–19).
    const raw = new SQLite(path);
    raw.pragma('journal_mode = DELETE');
    raw.close();
    const before = readFileSync(path);
    const fromDb = await runCli(['eval', '--database', path, ...FAST, '--json']);
    const fromFiles = await runCli(['eval', '--posts', posts, '--interactions', interactions, ...FAST, '--json']);
    expect(fromDb.code, fromDb.stderr).toBe(0);
    const strip = (r: EvalJson) => ({ ...r, source: '' });
    // The same data gives the same evaluation, wherever it is read from.
    expect(strip(JSON.parse(fromDb.stdout) as EvalJson)).toEqual(strip(JSON.parse(fromFiles.stdout) as EvalJson));
    // Opened read-only: not a byte of the file changed.
    expect(readFileSync(path).equals(before)).toBe(true);

    // --max-interactions: what the ranking_fit agent reads, the newest n by id (with their posts
    // and the newest 2,000, here every post), equals the files holding those interactions only.
    const n = 3_000;
    const newest = join(dir, 'newest.jsonl');
    writeFileSync(newest, toJsonLines(interactionsInTimeOrder(data).slice(-n)));
    const bounded = await runCli(['eval', '--database', path, '--max-interactions', String(n), ...FAST, '--json']);
    const boundedFiles = await runCli(['eval', '--posts', posts, '--interactions', newest, ...FAST, '--json']);
    expect(bounded.code, bounded.stderr).toBe(0);
    const boundedJson = JSON.parse(bounded.stdout) as EvalJson;
    expect(boundedJson.source).toBe(`${path} (the newest ${n} interactions)`);
    expect(strip(boundedJson)).toEqual(strip(JSON.parse(boundedFiles.stdout) as EvalJson));
    expect(boundedJson.data.evaluated_users).toBeLessThan((JSON.parse(fromDb.stdout) as EvalJson).data.evaluated_users);
  });

  it('shows its progress on a terminal only: the ranking counts its test users', async () => {
    const piped = await runCli(['eval', '--posts', posts, '--interactions', interactions, ...FAST, '--json']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    if (!hasScript) return;
    const term = terminal(`${process.execPath} ${BIN} eval --posts ${posts} --interactions ${interactions} ${FAST.join(' ')}`);
    expect(await term.exited).toBe(0);
    const users = (JSON.parse(piped.stdout) as EvalJson).data.evaluated_users;
    expect(term.output()).toContain(`ranking for test user 0 of ${users}…`);
    expect(term.output()).toMatch(/nDCG/);
  });

  it('--max-interactions reads as the ranking_fit agent reads, and only from --database', async () => {
    const help = await runCli(['eval', '--help']);
    // The help's figures are the agent's.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      `the newest ${FIT_NEWEST_POSTS.toLocaleString('en')}), as the ranking_fit agent reads its ${FIT_MAX_INTERACTIONS.toLocaleString('en')}`,
    );
    const files = await runCli(['eval', '--posts', posts, '--interactions', interactions, '--max-interactions', '10']);
    expect(files.code).toBe(2);
    expect(files.stderr).toContain('--max-interactions reads the newest interactions of --database');
    const zero = await runCli(['eval', '--database', join(dir, 'recsvc.db'), '--max-interactions', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--max-interactions');
    const missing = await runCli(['eval', '--database', join(dir, 'absent.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--database ${join(dir, 'absent.db')}: cannot open it read-only`);
    expect(existsSync(join(dir, 'absent.db'))).toBe(false);
  });

  it('refuses bad input with exit 2 and one line naming the file and line', async () => {
    const none = await runCli(['eval']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give one data source');
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(
      broken,
      `${JSON.stringify(data.interactions[0])}\n{"user_id":"u","post_id":"p","action":"shout","created_at":"2026-01-01T00:00:00Z"}\n`,
    );
    const bad = await runCli(['eval', '--posts', posts, '--interactions', broken]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${broken}:2:1: action: expected one of favorite, bookmark, reblog`);
    const unknown = await runCli(['eval', '--posts', posts, '--interactions', interactions, '--baselines', 'magic']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown baseline "magic"');
    // --synthetic names every kind the generator has (the command spells them to start fast).
    const kind = await runCli(['eval', '--synthetic', 'forum']);
    expect(kind.code).toBe(2);
    for (const name of SYNTHETIC_KINDS) expect(kind.stderr).toContain(name);
  });

  it('starts a feed engaged with over days at the recency half-life its pace names, and says so', async () => {
    const slow = generateSynthetic(syntheticOptions('feed-slow', { users: 300, authors: 60, posts: 1200, seed: 3 }));
    const slowPosts = join(dir, 'slow-posts.jsonl');
    const slowInteractions = join(dir, 'slow-interactions.jsonl');
    writeFileSync(slowPosts, toJsonLines(slow.statuses));
    writeFileSync(slowInteractions, toJsonLines(slow.interactions));
    const args = [
      'eval',
      '--posts',
      slowPosts,
      '--interactions',
      slowInteractions,
      '--samples',
      '20',
      '--baselines',
      'hot',
      '--max-users',
      '60',
    ];
    const json = await runCli([...args, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      default: { point: { recency_half_life_hours: number }; catalogue: boolean; median_age_hours: number | null };
    };
    // Favourites about a day after the post (attention fading e-fold in 24 h): twice that, on the ladder, is 72 h.
    expect(report.default.catalogue).toBe(false);
    expect(report.default.median_age_hours).toBeGreaterThan(14);
    expect(report.default.median_age_hours).toBeLessThan(36);
    expect(report.default.point.recency_half_life_hours).toBe(72);
    const text = await runCli(args);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/recency half-life 72 h, .* a feed’s: engagement came a median \d+ h after the posts/);
  });
});

describe('recsvc eval --trends', () => {
  // A smaller feed than --synthetic feed's default (a fifth of it), so two runs stay quick on a loaded machine.
  const feed = generateSynthetic(generatorOptions('feed', { users: 300, authors: 60, posts: 1200, seed: 3 }));
  const feedPosts = join(dir, 'feed-posts.jsonl');
  const feedInteractions = join(dir, 'feed-interactions.jsonl');
  beforeAll(() => {
    writeFileSync(feedPosts, toJsonLines(feed.statuses));
    writeFileSync(feedInteractions, toJsonLines(feed.interactions));
  });
  const FEED = ['--posts', feedPosts, '--interactions', feedInteractions];

  it("compares the FASP trends with fediscoverer's score on a synthetic feed: --json, the table and the Markdown summary", async () => {
    const md = join(dir, 'trends.md');
    const json = await runCli(['eval', ...FEED, '--trends', '--samples', '100', '--json', '--summary-md', md]);
    expect(json.code, json.stderr).toBe(0);
    const { source, trends } = JSON.parse(json.stdout) as {
      source: string;
      trends: {
        instants: number;
        within_last_hours: number;
        horizon_hours: number;
        rankers: { name: string; metrics: Record<string, { value: number; ci_low: number; ci_high: number }> }[];
        difference: Record<string, { value: number; ci_low: number; ci_high: number }>;
      };
    };
    expect(source).toBe(`${feedPosts} + ${feedInteractions}`);
    expect(trends).toMatchObject({ within_last_hours: 4, horizon_hours: 24 });
    expect(trends.instants).toBeGreaterThan(20);
    expect(trends.rankers.map((r) => r.name)).toEqual(['recsvc', 'fediscoverer']);
    for (const metric of ['ndcg', 'spearman']) expect(Number.isFinite(trends.difference[metric]!.value)).toBe(true);
    const summary = readFileSync(md, 'utf8');
    expect(summary).toContain('FASP trends vs fediscoverer');
    expect(summary).toMatch(/\| \*\*recsvc − fediscoverer\*\* \| -?\d\.\d{3} \[/);

    const text = await runCli(['eval', ...FEED, '--trends', '--samples', '100', '--trends-within-hours', '6']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('withinLastHours 6');
    expect(text.stdout).toMatch(/recsvc − fediscoverer\s+-?\d\.\d{3} \[/);
  }, 120_000);

  it('refuses the recommendation evaluation flags, and data with nothing to evaluate', async () => {
    const tune = await runCli(['eval', ...FEED, '--trends', '--tune']);
    expect(tune.code).toBe(2);
    expect(tune.stderr).toContain('--tune is not for --trends');
    const late = await runCli(['eval', '--posts', posts, '--interactions', interactions, '--trends', '--cutoff', '2100-01-01T00:00:00Z']);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('nothing to evaluate');
  });
});
