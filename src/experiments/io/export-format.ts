/**
 * The JSON Lines export of an experiment (decisions.md, Offline data): one experiment
 * line, one line per enrolled user, for an interleaving experiment one interleaving line per
 * user served an interleaved list, one performance line per variant. Parsing streams
 * users into per-variant accumulators; serialising is one function per line type.
 */
import { EXPERIMENT_DEFAULTS } from '../experiment-defaults.js';
import type { AnalysisDesign } from '../stats/analysis.js';
import { validateAllocation, validateAllocationSum, validateConfidenceLevel, validateMinimumSampleSize } from '../design-rules.js';
import { COUNT_KEYS, type UserCounts } from '../metrics.js';
import { DECIMAL_COUNT_KEYS, describeBadCount, findImpossibleCounts, MAX_COUNT } from './count-fields.js';
import { DuplicateUserCheck, userIdText, type DuplicateCheckMode } from './duplicate-users.js';
import { InputFileError } from './input-file-error.js';
import { InstanceAccumulators } from '../stats/instance-breakdown.js';
import { InterleavingLines } from '../interleaving/interleaving-export.js';
import type { UserTeamCounts } from '../interleaving/interleaving-result.js';
import { LATENCY_BUCKETS_MS } from '../stats/latency-histogram.js';
import { parseLines, type LineParser } from './line-parser.js';
import { createAccumulators, type VariantAccumulator } from '../stats/variant-accumulator.js';

export { createUserCsvParser, parseUserCsv, USER_CSV_HEADER, type ParsedUsers, type UserCsvOptions } from './user-csv.js';
export { parseChunks, parseLines, type LineParser } from './line-parser.js';
export { createUserIdScan, type DuplicateCheckMode } from './duplicate-users.js';

/** One enrolled user's counts. */
export interface UserRecord extends UserCounts {
  user_id: string | number;
  variant: string;
  /**
   * The user's pre-experiment engagement, CUPED's covariate (cuped.ts; what it counts:
   * user-counts.service.ts). Absent in exports made before it; the analysis adjusts only
   * when every user line has it.
   */
  pre_engagement?: number;
  /**
   * The instance of the user's canonical id (canonical-user-id.ts: its host, or the local
   * label), for the per-instance breakdown. Absent in exports made before it: the analysis
   * then has no `by_instance`.
   */
  instance?: string;
  /** When the user was enrolled (ISO 8601): the report's users per day. Absent in exports made before it. */
  assigned_at?: string;
  /**
   * The user's counts per UTC day ("YYYY-MM-DD" → counts, missing keys 0), adding up to the
   * totals: the report's history (src/experiments/report/timeline.ts reads and checks it; the
   * analysis ignores it). Absent in exports made before it, and for a user whose kept counts
   * predate the per-day split.
   */
  days?: Record<string, DayCounts>;
}

/** One day of a user's counts; a missing key is 0. */
export type DayCounts = Partial<UserCounts>;

/** A variant's serving figures over the experiment. */
export interface PerformanceRecord {
  variant: string;
  requests: number;
  errors: number;
  latency_ms_p95: number | null;
  cache_hits: number;
  cache_lookups: number;
  /**
   * Requests per latency bucket (index in LATENCY_BUCKETS_MS, the last one past it → count):
   * what the gates' order-statistic interval for p95 reads. Absent in exports made before it.
   */
  latency_histogram?: Record<string, number>;
}

/** The experiment line: the analysis design plus whatever else the server exported. */
export type ExperimentRecord = AnalysisDesign & Record<string, unknown> & { primary_metric?: string };

/** What an export yields. */
export interface ParsedExport {
  experiment: ExperimentRecord;
  accumulators: Map<string, VariantAccumulator>;
  performance: PerformanceRecord[];
  users: number;
  /** Instance → variant → accumulator, when every user line has an `instance` (exports from before it have none). */
  instances?: ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>>;
  /** Per user, the interleaving lines' team counts: present for an interleaving experiment (interleaving-export.ts). */
  interleaving?: readonly UserTeamCounts[];
  /** The first user line whose id was out of order (sorted duplicate check): re-check the file with createUserIdScan. */
  unsortedFrom?: number;
}

type Json = Record<string, unknown>;
const PERFORMANCE_COUNTS = ['requests', 'errors', 'cache_hits', 'cache_lookups'] as const;

/**
 * The `{"type":"experiment",...}` line. The experiment's own `type` (ab | interleaving) would
 * overwrite the line's type, so it travels as `experiment_type` (parseExperiment restores it).
 */
export function experimentLine(experiment: object): string {
  const { type: experimentType, ...rest } = experiment as { type?: unknown };
  return JSON.stringify({ type: 'experiment', ...(experimentType === undefined ? {} : { experiment_type: experimentType }), ...rest });
}

/** A `{"type":"user",...}` line, keys in the documented order. */
export function userLine(user: UserRecord): string {
  const record: Json = { type: 'user', user_id: user.user_id, variant: user.variant };
  for (const key of COUNT_KEYS) record[key] = user[key];
  if (user.pre_engagement !== undefined) record.pre_engagement = user.pre_engagement;
  if (user.instance !== undefined) record.instance = user.instance;
  if (user.assigned_at !== undefined) record.assigned_at = user.assigned_at;
  if (user.days !== undefined) record.days = user.days;
  return JSON.stringify(record);
}

/** A `{"type":"performance",...}` line, keys in the documented order. */
export function performanceLine(p: PerformanceRecord): string {
  const { variant, requests, errors, latency_ms_p95, cache_hits, cache_lookups, latency_histogram } = p;
  return JSON.stringify({ type: 'performance', variant, requests, errors, latency_ms_p95, cache_hits, cache_lookups, latency_histogram });
}

/** The whole export, line by line (without newlines): experiment, users, performance. */
export function* toJsonlLines(
  experiment: object,
  users: Iterable<UserRecord>,
  performance: Iterable<PerformanceRecord>,
): Generator<string> {
  yield experimentLine(experiment);
  for (const user of users) yield userLine(user);
  for (const p of performance) yield performanceLine(p);
}

class LineContext {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly text: string,
  ) {}

  /** An error pointing at `key`'s position in the line when present, else column 1. */
  fail(message: string, key?: string): InputFileError {
    const at = key === undefined ? -1 : this.text.indexOf(`"${key}"`);
    return new InputFileError(this.file, this.line, at >= 0 ? at + 1 : 1, message);
  }

  count(record: Json, key: string, decimal = false): number {
    const value = record[key];
    if (value === undefined) throw this.fail(`missing field "${key}"`);
    const ok = typeof value === 'number' && Number.isFinite(value) && value >= 0 && (decimal || Number.isInteger(value));
    if (!ok) throw this.fail(describeBadCount(key, JSON.stringify(value), decimal), key);
    if (value > MAX_COUNT) throw this.fail(`${key} is too large (got ${value}; at most ${MAX_COUNT})`, key);
    return value;
  }

  variant(record: Json, known: ReadonlyMap<string, unknown>): string {
    const value = record.variant;
    if (value === undefined) throw this.fail('missing field "variant"');
    if (typeof value !== 'string' || !known.has(value)) {
      throw this.fail(`unknown variant ${JSON.stringify(value)} (expected one of: ${[...known.keys()].join(', ')})`, 'variant');
    }
    return value;
  }
}

function parseJson(ctx: LineContext): Json {
  let value: unknown;
  try {
    value = JSON.parse(ctx.text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const column = position === undefined ? 1 : Number(position) + 1;
    throw new InputFileError(ctx.file, ctx.line, column, `invalid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ctx.fail('expected a JSON object');
  return value as Json;
}

function parseExperiment(ctx: LineContext, record: Json): ExperimentRecord {
  const variants = record.variants;
  if (!Array.isArray(variants) || variants.length < 2)
    throw ctx.fail('the experiment needs a "variants" array of at least two variants', 'variants');
  variants.forEach((v: Json, i) => {
    const ok = typeof v === 'object' && v !== null && typeof v.name === 'string' && typeof v.is_control === 'boolean';
    const issue = ok ? validateAllocation(v.traffic_allocation) : 'needs "name", "traffic_allocation" and "is_control"';
    if (issue !== undefined) throw ctx.fail(`variants[${i}]: ${issue}`, 'variants');
  });
  if (variants.filter((v: Json) => v.is_control === true).length !== 1)
    throw ctx.fail('exactly one variant must have "is_control": true', 'variants');
  const sumIssue = validateAllocationSum(variants.map((v: Json) => v.traffic_allocation as number));
  if (sumIssue !== undefined) throw ctx.fail(sumIssue, 'variants');
  const { type: _type, experiment_type: experimentType, ...rest } = record;
  const experiment = {
    ...rest,
    ...(experimentType === undefined ? {} : { type: experimentType }),
    confidence_level: rest.confidence_level ?? EXPERIMENT_DEFAULTS.confidence_level,
    minimum_sample_size: rest.minimum_sample_size ?? EXPERIMENT_DEFAULTS.minimum_sample_size,
  };
  const issue = validateConfidenceLevel(experiment.confidence_level) ?? validateMinimumSampleSize(experiment.minimum_sample_size);
  if (issue !== undefined) throw ctx.fail(issue);
  return experiment as ExperimentRecord;
}

function parsePerformance(
  ctx: LineContext,
  record: Json,
  known: ReadonlyMap<string, unknown>,
  seen: readonly PerformanceRecord[],
): PerformanceRecord {
  const variant = ctx.variant(record, known);
  if (seen.some((p) => p.variant === variant))
    throw ctx.fail(`a second performance line for variant ${JSON.stringify(variant)}`, 'variant');
  const [requests, errors, cache_hits, cache_lookups] = PERFORMANCE_COUNTS.map((key) => ctx.count(record, key)) as [
    number,
    number,
    number,
    number,
  ];
  if (errors > requests) throw ctx.fail(`errors (${errors}) exceed requests (${requests}): an error is a failed request`, 'errors');
  if (cache_hits > cache_lookups)
    throw ctx.fail(`cache_hits (${cache_hits}) exceed cache_lookups (${cache_lookups}): a hit is a lookup`, 'cache_hits');
  const latency = record.latency_ms_p95 === null || record.latency_ms_p95 === undefined ? null : ctx.count(record, 'latency_ms_p95', true);
  const histogram = record.latency_histogram === undefined ? undefined : parseLatencyHistogram(ctx, record.latency_histogram, requests);
  return {
    variant,
    requests,
    errors,
    latency_ms_p95: latency,
    cache_hits,
    cache_lookups,
    ...(histogram ? { latency_histogram: histogram } : {}),
  };
}

/** `{bucket index: count}`: indices of LATENCY_BUCKETS_MS (or the overflow bucket), whole counts summing to at most `requests`. */
function parseLatencyHistogram(ctx: LineContext, value: unknown, requests: number): Record<string, number> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw ctx.fail('latency_histogram must be an object of bucket index to count', 'latency_histogram');
  const histogram: Record<string, number> = {};
  let total = 0;
  for (const [bucket, count] of Object.entries(value as Json)) {
    const index = Number(bucket);
    if (!/^\d+$/.test(bucket) || index > LATENCY_BUCKETS_MS.length)
      throw ctx.fail(
        `latency_histogram: ${JSON.stringify(bucket)} is not a bucket index (0 to ${LATENCY_BUCKETS_MS.length})`,
        'latency_histogram',
      );
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
      throw ctx.fail(`latency_histogram: the count of bucket ${bucket} must be a whole number ≥ 0`, 'latency_histogram');
    histogram[bucket] = count;
    total += count;
  }
  if (total > requests) throw ctx.fail(`latency_histogram counts ${total} requests, more than requests (${requests})`, 'latency_histogram');
  return histogram;
}

class JsonlExportParser implements LineParser<ParsedExport> {
  private experiment: ExperimentRecord | undefined;
  private accumulators = new Map<string, VariantAccumulator>();
  private readonly performance: PerformanceRecord[] = [];
  private readonly counts = new Float64Array(COUNT_KEYS.length);
  private lineNumber = 0;
  private users = 0;
  private readonly instances = new InstanceAccumulators();
  private everyUserHasInstance = true;
  private interleaving: InterleavingLines | undefined;
  private readonly duplicates: DuplicateUserCheck;

  constructor(
    private readonly file: string,
    duplicateCheck: DuplicateCheckMode = 'sorted',
  ) {
    this.duplicates = new DuplicateUserCheck(file, duplicateCheck);
  }

  line(raw: string): void {
    const lineNumber = ++this.lineNumber;
    if (raw.trim() === '') return;
    const ctx = new LineContext(this.file, lineNumber, lineNumber === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
    const record = parseJson(ctx);
    if (this.experiment === undefined) {
      if (record.type !== 'experiment') throw ctx.fail('the first line must be the {"type":"experiment",...} line', 'type');
      this.experiment = parseExperiment(ctx, record);
      this.accumulators = createAccumulators(this.experiment.variants.map((v) => v.name));
    } else if (record.type === 'user') {
      this.user(ctx, record);
    } else if (record.type === 'performance') {
      this.performance.push(parsePerformance(ctx, record, this.accumulators, this.performance));
    } else if (record.type === 'interleaving') {
      this.interleaving ??= new InterleavingLines(this.experiment);
      this.interleaving.add(ctx, record);
    } else {
      const message =
        record.type === 'experiment'
          ? 'a second experiment line'
          : `unknown line type ${JSON.stringify(record.type)} (expected "user", "interleaving" or "performance")`;
      throw ctx.fail(message, 'type');
    }
  }

  private user(ctx: LineContext, record: Json): void {
    const accumulator = this.accumulators.get(ctx.variant(record, this.accumulators)) as VariantAccumulator;
    if (record.user_id === undefined) throw ctx.fail('missing field "user_id"');
    const id = userIdText(record.user_id);
    if (id === undefined) throw ctx.fail('user_id must be a non-empty string or a number', 'user_id');
    COUNT_KEYS.forEach((key, i) => {
      this.counts[i] = ctx.count(record, key, DECIMAL_COUNT_KEYS.has(key));
    });
    const issue = findImpossibleCounts(this.counts);
    if (issue !== undefined) throw ctx.fail(issue.message, issue.key);
    const covariate = record.pre_engagement === undefined ? undefined : ctx.count(record, 'pre_engagement', true);
    this.duplicates.add(id, ctx.line);
    accumulator.addRow(this.counts, covariate);
    this.instance(ctx, record, accumulator.name);
    this.users++;
  }

  private instance(ctx: LineContext, record: Json, variant: string): void {
    const instance = record.instance;
    if (instance === undefined) {
      this.everyUserHasInstance = false;
      return;
    }
    if (typeof instance !== 'string' || instance === '')
      throw ctx.fail('instance must be a non-empty string (the host of the user id, or the local label)', 'instance');
    if (this.everyUserHasInstance) this.instances.addRow(instance, variant, this.counts);
  }

  finish(): ParsedExport {
    if (this.experiment === undefined)
      throw new InputFileError(this.file, Math.max(this.lineNumber, 1), 1, 'the file has no experiment line');
    const instances = this.everyUserHasInstance && this.users > 0 ? { instances: this.instances.entries() } : {};
    const interleaving = this.experiment.type === 'interleaving' ? { interleaving: this.interleaving?.entries() ?? [] } : {};
    return {
      experiment: this.experiment,
      accumulators: this.accumulators,
      performance: this.performance,
      users: this.users,
      ...instances,
      ...interleaving,
      ...(this.duplicates.unsortedFrom === undefined ? {} : { unsortedFrom: this.duplicates.unsortedFrom }),
    };
  }
}

/**
 * A push parser of an export: the first non-blank line must be the experiment; user lines
 * go straight into per-variant accumulators; performance lines are kept (one per variant).
 * Throws InputFileError (`file:line:column: ...`) on bad JSON, a missing or bad field (counts:
 * non-negative, whole except session_seconds, at most 15 digits; the optional pre_engagement a
 * non-negative number), counts no user can have
 * (findImpossibleCounts), errors > requests or cache_hits > cache_lookups, a second
 * performance line for a variant, an unknown variant or line type, a bad or repeated interleaving
 * line (interleaving-export.ts), allocations not adding up to 100, a user id on two lines
 * (duplicate-users.ts: at once in a sorted export; an unsorted one is reported in `unsortedFrom`
 * for a second pass). Blank lines are skipped.
 */
export function createJsonlExportParser(file: string, duplicateCheck: DuplicateCheckMode = 'sorted'): LineParser<ParsedExport> {
  return new JsonlExportParser(file, duplicateCheck);
}

/** Parses an export from an async iterable of lines (see createJsonlExportParser for the rules). */
export function parseJsonlExport(lines: AsyncIterable<string>, file: string): Promise<ParsedExport> {
  return parseLines(lines, createJsonlExportParser(file));
}
