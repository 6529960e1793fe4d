/** `recsvc eval`: offline evaluation of the ranking against simple baselines, through the server's own ranking code. */
import { InvalidArgumentError, type Command } from 'commander';
import { parseFiniteNumber, parsePositiveInt, parseShare } from './support/options.js';
import type { EvalCommandOptions } from './eval.action.js';
import type { SyntheticKind } from '../src/evaluation/generate.js';
import type { AskAt } from '../src/evaluation/dataset.js';

/** The generator's SYNTHETIC_KINDS, spelled here so that registering the command does not load the generator. */
const KINDS: readonly SyntheticKind[] = ['feed', 'catalogue', 'catalogue-popular', 'feed-slow', 'feed-fast'];

function parseRegime(text: string): SyntheticKind {
  const kind = KINDS.find((k) => k === text);
  if (kind === undefined) throw new InvalidArgumentError('expected feed, catalogue, catalogue-popular, feed-slow or feed-fast');
  return kind;
}

function parseAskAt(text: string): AskAt {
  if (text !== 'first-interaction' && text !== 'cutoff') throw new InvalidArgumentError('expected first-interaction or cutoff');
  return text;
}

function parseSeed(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 0xffffffff) throw new InvalidArgumentError('expected an integer from 0 to 4294967295');
  return Number(text);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Registers `eval`. */
export function registerEval(program: Command): void {
  program
    .command('eval')
    .description("offline evaluation: the ranking (the server's own code) and baselines on a temporal holdout, with intervals")
    .option('--posts <file>', 'posts to evaluate on: Mastodon statuses, one JSON object per line (.gz read through gunzip)')
    .option('--interactions <file>', 'interactions: JSON Lines {user_id, post_id, action, created_at} or a CSV with that header')
    .option(
      '--database <path|url>',
      "the service's database, an SQLite file (opened read-only) or a postgres:// URL (only read): its posts and interactions",
    )
    .option(
      '--max-interactions <n>',
      'with --database: the newest n interactions only (with their posts and the newest 2,000), as the ranking_fit agent reads its 100,000',
      parsePositiveInt,
    )
    .option(
      '--synthetic <regime>',
      'generated data with a known structure: feed, catalogue, catalogue-popular (a strong popularity head), feed-slow (engaged with over days) or feed-fast (within the hour)',
      parseRegime,
    )
    .option('--data-seed <n>', 'seed of --synthetic', parseSeed, 1)
    .option('--write-data <dir>', 'with --synthetic: also write the data as posts.jsonl and interactions.jsonl in this directory')
    .option(
      '--candidate <name=file>',
      'a candidate ranking: weights, an algorithm_config, a variant or an experiment (JSON); repeatable',
      collect,
      [],
    )
    .option('--baselines <list>', 'baselines to compare with (default all): popularity,recent_6h,hot,newest,item_knn,ease')
    .option('-k, --k <n>', 'list length the metrics cut at', parsePositiveInt, 20)
    .option('--test-fraction <share>', 'share of the interactions after the cutoff (default 0.1; with --trends 0.5)', parseShare)
    .option('--cutoff <time>', 'the cutoff instant (ISO 8601) instead of --test-fraction')
    .option(
      '--horizon-hours <h>',
      'targets are what a user engaged with within this many hours of their instant (default: all after it)',
      parseFiniteNumber,
    )
    .option(
      '--ask-at <when>',
      "when each test user is asked: first-interaction (their first after the cutoff, as a live service's users come back) or cutoff (all at once, as an evaluator replaying a history and then asking)",
      parseAskAt,
      'first-interaction',
    )
    .option('--samples <n>', 'bootstrap resamples', parsePositiveInt, 1000)
    .option('--seed <n>', 'seed of the bootstrap and of sampling users', parseSeed, 2026)
    .option('--max-users <n>', 'evaluate a seeded sample of this many test users', parsePositiveInt)
    .option('--ease-max-items <n>', 'EASE is fitted on at most this many items (memory 16·n² bytes)', parsePositiveInt, 1000)
    .option(
      '--no-item-model',
      'leave out the periodic item–item model (EASE) the server serves beside the co-engagement state (built at the cutoff and at the fit’s)',
    )
    .option(
      '--item-model-posts <n>',
      'the item model is fitted over at most this many of the most engaged posts (≤ 3000; memory 32·n² bytes; the server: RECSVC_ITEM_MODEL_POSTS)',
      parsePositiveInt,
      1000,
    )
    .option(
      '--tune',
      'search the weights on a validation split and add the result as candidate "tuned", printed as a ready-to-create variant',
    )
    .option(
      '--write-experiment <file>',
      'with --tune: write an experiment (default weights as control vs the tuned variant) for recsvc experiment create --file',
    )
    .option('--tune-users <n>', 'validation users ranked per configuration while tuning', parsePositiveInt, 300)
    .option(
      '--fit',
      'add candidate "fitted": the default the ranking_fit agent reaches from the history before the cutoff (weights, half-life, cap per author, cold start)',
    )
    .option('--fit-steps <n>', 'with --fit: successive fits at most (each moves one ladder step)', parsePositiveInt, 6)
    .option('--gate', "exit 1 when a candidate's nDCG is below a baseline's, 4 when undecided (like gates check)")
    .option('--gate-margin <x>', 'how much below a baseline still passes', parseFiniteNumber, 0)
    .option('--min-users <n>', 'fewer test users in a group make its gate inconclusive', parsePositiveInt, 30)
    .option('--allow-inconclusive', 'exit 0 instead of 4 when the gate cannot decide')
    .option('--junit <file>', 'with --gate: also write JUnit XML (one test case per candidate x group x baseline)')
    .option('--summary-md <file>', 'also append a Markdown summary (GitHub step-summary format), e.g. "$GITHUB_STEP_SUMMARY"')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option('--json', 'print the evaluation as one JSON object')
    .option(
      '--trends',
      "evaluate the FASP trends instead: at instants from the cutoff, recsvc's trend rank and fediscoverer's capped-count score against the next window's engagement",
    )
    .option('--trends-within-hours <h>', 'with --trends: the withinLastHours of the query', parsePositiveInt, 4)
    .option(
      '--trends-horizon-hours <h>',
      'with --trends: the window after each instant whose engagement is the target',
      parsePositiveInt,
      24,
    )
    .option('--trends-step-hours <h>', 'with --trends: hours between instants (default: --trends-within-hours)', parsePositiveInt)
    .addHelpText(
      'after',
      `
Data: --posts with --interactions (what "recsvc import" reads), or --database, or --synthetic.
Protocol: the interactions before the cutoff are the history. Each user active after it is
evaluated once, at their first interaction after the cutoff (--ask-at cutoff: all at the
cutoff, as an evaluator who replays a history and then asks does): the service as it stood then
(the candidate pool and counters replayed up to that instant, their profile from their
history) ranks K posts, scored against the posts they went on to engage with that existed
at that instant. Users with and without history are reported apart. The ranking is the
server's own code (src/ranking); "default" is the shipped algorithm_config.
Metrics (each with a per-user bootstrap interval): nDCG, Recall, HitRate, MRR, catalogue
coverage and novelty at K; paired differences of every candidate against every baseline.
With --trends (docs/fasp.md, "Trends against fediscoverer"): at instants every step from the
cutoff, the posts of the last withinLastHours ranked by recsvc's trends formula and by
fediscoverer's capped-count score from the history before the instant, against each post's
distinct engagers in the following horizon: nDCG@K and Spearman, bootstrap over instants,
and the paired difference recsvc − fediscoverer.
Exit codes: 0 done (with --gate: every candidate at least every baseline); 1 a candidate is
below a baseline; 4 inconclusive (without --allow-inconclusive); 2 bad flags or input.

Examples:
  $ recsvc eval --synthetic feed
  $ recsvc eval --posts posts.jsonl --interactions interactions.csv --html eval.html
  $ recsvc eval --database recsvc.db --candidate mine=weights.json --gate --junit eval.xml
  $ recsvc eval --database recsvc.db --tune --json
  $ recsvc eval --database postgres://recsvc@db/recsvc --max-interactions 100000 --fit
  $ recsvc eval --synthetic catalogue --fit
  $ recsvc eval --synthetic feed --trends --json`,
    )
    .action(async (options: EvalCommandOptions) => {
      const { runEval } = await import('./eval.action.js');
      await runEval(options);
    });
}
