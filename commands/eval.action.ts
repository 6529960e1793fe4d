/**
 * The work behind `recsvc eval`: data in, a temporal split, the candidates (the shipped
 * default, files, the tuned weights) and the baselines through one replay, then the
 * reports: table or JSON on stdout, and the gate, JUnit, Markdown and HTML when asked.
 */
import { readFile, writeFile, appendFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { BASELINE_NAMES, baselines, type BaselineName } from '../src/evaluation/baselines.js';
import { candidatesFromJson, type NamedConfig } from '../src/evaluation/candidate-config.js';
import { temporalSplit, validationSplit, type AskAt, type Split } from '../src/evaluation/dataset.js';
import { fitSteps } from '../src/evaluation/fit.js';
import {
  describeRankingDefault,
  rankingOf,
  SHIPPED_RANKING_DEFAULT,
  RECENCY_PER_PACE,
  startingRankingDefault,
  type RankingDefault,
} from '../src/ranking/ranking-default.js';
import { EvalState } from '../src/evaluation/eval-context.js';
import type { ItemModelOptions } from '../src/ranking/item-model.js';
import { evalGate, type EvalGate } from '../src/evaluation/eval-gate.js';
import { renderEvalHtml } from '../src/evaluation/eval-report-html.js';
import {
  evalJunitXml,
  evalSummaryMarkdown,
  formatEstimate,
  GROUP_TITLE,
  returningNote,
  STEP_SUMMARY_MAX_BYTES,
} from '../src/evaluation/eval-text.js';
import { evaluate, type Evaluation } from '../src/evaluation/evaluate.js';
import { EVAL_METRICS } from '../src/evaluation/metrics.js';
import { rankingCandidate } from '../src/evaluation/rankers.js';
import { tunedExperiment, tuneWeights, type TunedVariant } from '../src/evaluation/tune.js';
import { cutoffFor, DEFAULT_TEST_FRACTION } from '../src/evaluation/dataset.js';
import { evaluateTrends, TREND_METRICS, type TrendsEvaluation } from '../src/evaluation/trends-eval.js';
import { trendsSummaryMarkdown } from '../src/evaluation/eval-text.js';
import type { AlgorithmConfig, RankingKnobs } from '../src/ranking/ranking.types.js';
import { EXIT } from '../src/exit-codes.js';
import { usageError } from './support/cli-error.js';
import { loadEvalData, type EvalDataFlags } from './support/eval-data.js';
import { exitCodeFor } from './support/gates-report.js';
import { printJson, printLine, progress, progressDone, renderTable, throttledProgress, warn } from './support/output.js';

export interface EvalCommandOptions extends EvalDataFlags {
  candidate: string[];
  baselines?: string;
  k: number;
  testFraction?: number;
  cutoff?: string;
  horizonHours?: number;
  askAt: AskAt;
  samples: number;
  seed: number;
  maxUsers?: number;
  easeMaxItems: number;
  itemModel?: boolean;
  itemModelPosts: number;
  tune?: boolean;
  tuneUsers: number;
  fit?: boolean;
  fitSteps: number;
  writeExperiment?: string;
  gate?: boolean;
  gateMargin: number;
  minUsers: number;
  allowInconclusive?: boolean;
  junit?: string;
  summaryMd?: string;
  html?: string;
  json?: boolean;
  trends?: boolean;
  trendsWithinHours: number;
  trendsHorizonHours: number;
  trendsStepHours?: number;
}

/** Evaluates, reports, and sets the exit code. */
export async function runEval(options: EvalCommandOptions): Promise<void> {
  if (options.trends) return runTrendsEval(options);
  const names = parseBaselines(options.baselines);
  const files = await candidateFiles(options.candidate);
  progress('reading the data…');
  const { dataset, source } = await loadEvalData(options);
  const split = temporalSplit(dataset, {
    ...(options.cutoff === undefined
      ? { testFraction: options.testFraction ?? DEFAULT_TEST_FRACTION }
      : { cutoffMs: parseTime(options.cutoff) }),
    ...(options.horizonHours === undefined ? {} : { horizonMs: options.horizonHours * 3_600_000 }),
    askAt: options.askAt,
  });
  if (split.users.length === 0)
    throw usageError(
      `${source}: no user engaged after the cutoff (${new Date(split.cutoffMs).toISOString()}) with a post that existed: nothing to evaluate`,
    );
  let tuned: TunedVariant | undefined;
  if (options.tune) {
    progress('tuning the weights on a validation split…');
    tuned = await tuneWeights(split, { k: options.k, maxUsers: options.tuneUsers, seed: options.seed });
  }
  const itemModel = options.itemModel === false ? undefined : { maxItems: options.itemModelPosts };
  const state = new EvalState(split, {}, {}, itemModel);
  // What the service serves before any fit: the starting point the history's pace names.
  const starting = startingRankingDefault(state.index.pace);
  let fitted: FittedDefault | undefined;
  if (options.fit) {
    progress('fitting the default ranking on the history before the cutoff…');
    fitted = await fitDefault(split, starting, options.fitSteps, options.k, itemModel);
  }
  const shipped = rankingOf(starting);
  const candidates: NamedConfig[] = [
    { name: 'default', config: shipped.config },
    ...files,
    ...(tuned ? [{ name: 'tuned', config: tuned.variant.algorithm_config }] : []),
  ];
  const ranked = { done: 0, total: split.users.length };
  // A terminal's writes are synchronous: the line moves while the (synchronous) evaluation ranks.
  const report = throttledProgress(() => `ranking for test user ${ranked.done} of ${ranked.total}…`);
  report();
  const rankers = [
    ...candidates.map((c) => rankingCandidate(c.name, c.config, state, c.name === 'default' ? shipped.options : {})),
    ...(fitted ? [rankingCandidate('fitted', fitted.config, state, fitted.options)] : []),
    ...baselines(state, names, { easeMaxItems: options.easeMaxItems }),
  ];
  warnIfEaseTruncated(state, names, options.easeMaxItems);
  const evaluation = evaluate(state, rankers, {
    k: options.k,
    samples: options.samples,
    seed: options.seed,
    maxUsers: options.maxUsers,
    onUser: (done, total) => {
      ranked.done = done;
      ranked.total = total;
      report();
    },
  });
  progressDone();
  const gate = options.gate ? evalGate(evaluation, { margin: options.gateMargin, minUsers: options.minUsers }) : undefined;
  await writeReports(options, evaluation, gate, tuned, source);
  const fit = fitted === undefined ? undefined : { point: fitted.point, steps: fitted.steps };
  // What candidate "default" is: the point the service serves before any fit, as the history's pace names it.
  const catalogue = state.index.pace.catalogue();
  const medianAge = state.index.pace.medianAgeHours();
  const startingPoint = { point: starting, catalogue, median_age_hours: medianAge === null ? null : Number(medianAge.toPrecision(3)) };
  if (options.json)
    printJson({
      source,
      ...evaluation,
      default: startingPoint,
      ...(gate ? { gate } : {}),
      ...(tuned ? { tuned } : {}),
      ...(fit ? { fitted: fit } : {}),
    });
  else {
    printLine(renderEvaluation(evaluation, gate, tuned, source));
    printLine(
      `\nDefault (candidate "default", before any fit): ${describeRankingDefault(starting)}` +
        (catalogue
          ? ' — a catalogue’s starting point: engagement came months after the posts'
          : medianAge !== null
            ? ` — a feed’s: engagement came a median ${medianAge.toPrecision(2)} h after the posts, the recency half-life ${RECENCY_PER_PACE}× that on its ladder`
            : ''),
    );
    if (fit !== undefined)
      printLine(
        ['', `Fitted default (candidate "fitted"): ${describeRankingDefault(fit.point)}`, ...fit.steps.map((s) => `  ${s}`)].join('\n'),
      );
  }
  process.exitCode = gate === undefined ? EXIT.ok : exitCodeFor(gate.verdict, options.allowInconclusive === true);
}

/**
 * EASE fitted over fewer posts than the training data engaged ranks below its strength on a
 * large catalogue (an independent EASE would see them all): say so, with what raising it costs.
 */
function warnIfEaseTruncated(state: EvalState, names: readonly BaselineName[], bound: number): void {
  if (!names.includes('ease')) return;
  const engaged = state.trainUsersOf.reduce((n, users) => (users > 0 ? n + 1 : n), 0);
  if (engaged <= bound) return;
  const suggested = Math.min(engaged, 3_000);
  warn(
    `ease is fitted over the ${bound} most engaged of ${engaged} engaged posts, below its strength on a catalogue this size: ` +
      `--ease-max-items ${suggested} holds ${suggested} (about ${Math.ceil((16 * suggested * suggested) / 1e6)} MB, time ∝ n³)`,
  );
}

interface FittedDefault {
  readonly point: RankingDefault;
  readonly config: AlgorithmConfig;
  readonly options: RankingKnobs;
  /** Each fit's one-line summary. */
  readonly steps: string[];
}

/**
 * The default the ranking_fit agent would reach from this history: successive fits (each one
 * ladder step at most, on an interval above 0) on the validation split of the history before
 * the cutoff, from the shipped point as the agent searches, until one keeps its point or
 * `steps` ran; when none applies, the service keeps serving `starting` (the pace's).
 */
async function fitDefault(
  split: Split,
  starting: RankingDefault,
  steps: number,
  k: number,
  itemModel: Partial<ItemModelOptions> | undefined,
): Promise<FittedDefault> {
  // As the agent: searched from the shipped point, and kept at the starting point unless the search beats it.
  const result = await fitSteps(validationSplit(split), SHIPPED_RANKING_DEFAULT, steps, {
    k,
    itemModel: itemModel ?? null,
    served: starting,
  });
  const point = result.status === 'applied' ? result.chosen : starting;
  return { point, ...rankingOf(point), steps: [...result.steps] };
}

function parseBaselines(text: string | undefined): BaselineName[] {
  if (text === undefined) return [...BASELINE_NAMES];
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  for (const name of names)
    if (!(BASELINE_NAMES as readonly string[]).includes(name))
      throw usageError(`--baselines: unknown baseline "${name}" (known: ${BASELINE_NAMES.join(', ')})`);
  return names as BaselineName[];
}

function parseTime(text: string): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw usageError(`--cutoff: expected an ISO 8601 time (got "${text}")`);
  return ms;
}

/** `name=file` or `file` (named after the file): each file's candidates. */
async function candidateFiles(specs: readonly string[]): Promise<NamedConfig[]> {
  const out: NamedConfig[] = [];
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const [name, file] = eq > 0 ? [spec.slice(0, eq), spec.slice(eq + 1)] : [basename(spec).replace(/\.[^.]*$/, ''), spec];
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw usageError(`--candidate ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    try {
      // A JSON document, or an export (its first line is the experiment).
      const first = text.trimStart().startsWith('{') && text.includes('\n{') ? (text.split('\n')[0] as string) : text;
      out.push(...candidatesFromJson(JSON.parse(first), name));
    } catch (error) {
      throw usageError(`--candidate ${file}: ${(error as Error).message}`);
    }
  }
  const names = new Set(['default', 'tuned']);
  for (const c of out) {
    if (names.has(c.name))
      throw usageError(`--candidate: the name "${c.name}" is taken (default, tuned and each candidate need their own)`);
    names.add(c.name);
  }
  return out;
}

async function writeReports(
  options: EvalCommandOptions,
  evaluation: Evaluation,
  gate: EvalGate | undefined,
  tuned: TunedVariant | undefined,
  source: string,
): Promise<void> {
  const fail = (flag: string, path: string) => (error: unknown) =>
    usageError(`${flag} ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  if (options.writeExperiment !== undefined) {
    if (tuned === undefined) throw usageError('--write-experiment writes the tuned variant: add --tune');
    const path = options.writeExperiment;
    await writeFile(path, `${JSON.stringify(tunedExperiment(tuned), null, 2)}\n`).catch((e: unknown) =>
      Promise.reject(fail('--write-experiment', path)(e)),
    );
  }
  if (options.junit !== undefined) {
    if (gate === undefined) throw usageError('--junit reports the gate: add --gate');
    await writeFile(options.junit, evalJunitXml(gate)).catch((e: unknown) => Promise.reject(fail('--junit', options.junit as string)(e)));
  }
  if (options.html !== undefined) {
    const html = renderEvalHtml(evaluation, { source, generatedAt: Date.now() }, gate, tuned);
    await writeFile(options.html, html).catch((e: unknown) => Promise.reject(fail('--html', options.html as string)(e)));
  }
  if (options.summaryMd !== undefined) {
    const path = options.summaryMd;
    const existing = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    const budget = STEP_SUMMARY_MAX_BYTES - existing - 1;
    if (budget < 1024)
      warn(`--summary-md ${path}: not written, the file already holds ${existing} bytes and a step summary must stay under 1 MiB`);
    else
      await appendFile(path, `${existing > 0 ? '\n' : ''}${evalSummaryMarkdown(evaluation, gate, source, budget)}`).catch((e: unknown) =>
        Promise.reject(fail('--summary-md', path)(e)),
      );
  }
}

function renderEvaluation(evaluation: Evaluation, gate: EvalGate | undefined, tuned: TunedVariant | undefined, source: string): string {
  const k = evaluation.k;
  const out = [
    `${source}: cutoff ${evaluation.cutoff}, ${evaluation.data.evaluated_users} test users, K = ${k}, ${Math.round(evaluation.confidence * 100)}% bootstrap intervals`,
  ];
  for (const group of evaluation.groups) {
    if (group.group === 'all') continue;
    out.push(
      '',
      `${GROUP_TITLE[group.group]} (${group.users})${returningNote(evaluation, group.group)}${group.best_baseline ? `, best baseline ${group.best_baseline}` : ''}`,
    );
    if (group.users === 0) continue;
    out.push(
      renderTable(
        ['ranker', ...EVAL_METRICS.map((m) => `${m}@${k}`)],
        group.rankers.map((r) => [r.name, ...EVAL_METRICS.map((m) => formatEstimate(r.metrics[m], m))]),
      ),
    );
    const ndcg = group.comparisons.filter((c) => c.metric === 'ndcg');
    if (ndcg.length > 0)
      out.push(
        '',
        renderTable(
          ['candidate', 'minus', `nDCG@${k} difference`],
          ndcg.map((c) => [c.candidate, c.against, formatEstimate(c)]),
        ),
      );
  }
  if (gate !== undefined) {
    const bad = gate.cases.filter((c) => c.verdict !== 'pass');
    out.push('', `Gate: ${gate.verdict} (${gate.cases.length - bad.length} of ${gate.cases.length} comparisons pass)`);
    for (const c of bad)
      out.push(
        `  ${c.verdict}: ${c.candidate} vs ${c.baseline} (${c.group.replace('_', ' ')}): ${formatEstimate({ value: c.difference, ci_low: c.ci_low, ci_high: c.ci_high })}${c.reason ? `, ${c.reason}` : ''}`,
      );
  }
  if (tuned !== undefined)
    out.push('', tuned.description, 'Variant (recsvc experiment create accepts it in "variants"):', JSON.stringify(tuned.variant, null, 2));
  return out.join('\n');
}

/** Flags of the recommendation evaluation that mean nothing to --trends. */
const NOT_WITH_TRENDS: readonly [keyof EvalCommandOptions, string][] = [
  ['tune', '--tune'],
  ['fit', '--fit'],
  ['gate', '--gate'],
  ['junit', '--junit'],
  ['html', '--html'],
  ['baselines', '--baselines'],
  ['maxUsers', '--max-users'],
  ['horizonHours', '--horizon-hours'],
  ['writeExperiment', '--write-experiment'],
];

/** `recsvc eval --trends`: recsvc's FASP trends against fediscoverer's score (src/evaluation/trends-eval.ts). */
async function runTrendsEval(options: EvalCommandOptions): Promise<void> {
  for (const [key, flag] of NOT_WITH_TRENDS)
    if (options[key] !== undefined && options[key] !== false)
      throw usageError(`${flag} is not for --trends (it evaluates the recommendations)`);
  if (options.candidate.length > 0) throw usageError('--candidate is not for --trends (it evaluates the recommendations)');
  progress('reading the data…');
  const { dataset, source } = await loadEvalData(options);
  const fromMs = options.cutoff !== undefined ? parseTime(options.cutoff) : cutoffFor(dataset.interactions, options.testFraction ?? 0.5);
  progress('ranking the trends at each instant…');
  const trends = evaluateTrends(dataset, {
    fromMs,
    withinLastHours: options.trendsWithinHours,
    horizonHours: options.trendsHorizonHours,
    stepHours: options.trendsStepHours ?? options.trendsWithinHours,
    k: options.k,
    samples: options.samples,
    seed: options.seed,
  });
  progressDone();
  if (trends.instants === 0)
    throw usageError(
      `${source}: no instant from ${trends.from} with a full ${trends.horizon_hours}-hour window after it in which a candidate post was engaged with: nothing to evaluate`,
    );
  if (options.summaryMd !== undefined) {
    const path = options.summaryMd;
    await appendFile(path, trendsSummaryMarkdown(trends, source)).catch((error: unknown) => {
      throw usageError(
        `--summary-md ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    });
  }
  if (options.json) printJson({ source, trends });
  else printLine(renderTrends(trends, source));
  process.exitCode = EXIT.ok;
}

function renderTrends(trends: TrendsEvaluation, source: string): string {
  const k = trends.k;
  return [
    `${source}: FASP trends, ${trends.instants} instants every ${trends.step_hours} h from ${trends.from} (withinLastHours ${trends.within_last_hours}, ${trends.mean_candidates.toFixed(1)} candidates each), target: distinct engagers in the next ${trends.horizon_hours} h, ${Math.round(trends.confidence * 100)}% bootstrap intervals over instants`,
    '',
    renderTable(
      ['ranker', `nDCG@${k}`, 'Spearman'],
      [
        ...trends.rankers.map((r) => [r.name, ...TREND_METRICS.map((m) => formatEstimate(r.metrics[m]))]),
        ['recsvc − fediscoverer', ...TREND_METRICS.map((m) => formatEstimate(trends.difference[m]))],
      ],
    ),
  ].join('\n');
}
