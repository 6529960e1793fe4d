/**
 * Loading offline data for `experiment analyze --file` and `gates check --file`: a JSON
 * Lines export or the per-user CSV (decisions.md, Offline data), optionally gzipped,
 * streamed through src/experiments' parsers into per-variant accumulators. For a CSV the
 * design comes from --allocations/--control or --experiment-file.
 */
import { readFile } from 'node:fs/promises';
import type { AnalysisDesign } from '../../src/experiments/stats/analysis.js';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { assertAnalysable } from '../../src/experiments/io/analysable.js';
// The JSON Lines export's parser (with the interleaving and instance breakdowns) is imported
// only when the file may be one: a CSV's `gates check --file` in CI loads a few modules less.
import type { createJsonlExportParser, PerformanceRecord } from '../../src/experiments/io/export-format.js';
import { createUserIdScan, type DuplicateCheckMode } from '../../src/experiments/io/duplicate-users.js';
import { parseChunks, type LineParser } from '../../src/experiments/io/line-parser.js';
import { createUserCsvParser } from '../../src/experiments/io/user-csv.js';
import type { UserTeamCounts } from '../../src/experiments/interleaving/interleaving-result.js';
import type { GateThresholds } from '../../src/experiments/experiment.schema.js';
import {
  validateAllocation,
  validateAllocationSum,
  validateConfidenceLevel,
  validateMinimumSampleSize,
} from '../../src/experiments/design-rules.js';
import type { VariantAccumulator } from '../../src/experiments/stats/variant-accumulator.js';
import { parseAllocations } from './allocations.js';
import { usageError } from './cli-error.js';
import { openLineSource, type LineSource } from './line-source.js';
import { formatCount, progress, progressDone } from './output.js';

/** The flags that describe an offline input. */
export interface OfflineFlags {
  file: string;
  allocations?: string;
  control?: string;
  experimentFile?: string;
  confidenceLevel?: number;
  minSampleSize?: number;
}

/** A design plus what the file or flags say about the experiment. */
export interface OfflineDesign extends AnalysisDesign {
  id?: number | string;
  name?: string;
  primary_metric?: string;
  gates?: GateThresholds;
}

export interface OfflineData {
  file: string;
  format: 'jsonl' | 'csv';
  design: OfflineDesign;
  accumulators: Map<string, VariantAccumulator>;
  performance: PerformanceRecord[];
  users: number;
  /** Per instance, per variant: present when every user line of a JSONL export names its instance. */
  instances?: ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>>;
  /** Per user, the team counts of an interleaving experiment's export (its interleaving lines). */
  interleaving?: readonly UserTeamCounts[];
}

/**
 * Streams the file into accumulators; malformed rows, duplicate users, data that cannot be
 * analysed (no users, or all in one variant) and bad flags are usage errors (exit 2). Duplicate
 * users: a file sorted by user id (an export) is checked in one pass and O(1) memory; an unsorted
 * one is read a second time with a table of id hashes (duplicate-users.ts); stdin, which cannot
 * be read twice, gets the table from the start.
 */
export async function loadOfflineData(flags: OfflineFlags): Promise<OfflineData> {
  const csvDesign = await designFromFlags(flags);
  const duplicateCheck: DuplicateCheckMode = flags.file === '-' ? 'table' : 'sorted';
  // With a CSV's design given by flags, a JSON Lines file is refused before it is parsed.
  const jsonlParser =
    csvDesign === undefined ? (await import('../../src/experiments/io/export-format.js')).createJsonlExportParser : undefined;
  const parser = new SniffingParser(flags.file, csvDesign, flags, duplicateCheck, jsonlParser);
  await parseFile(flags.file, parser);
  const data = parser.result();
  if (parser.unsortedFrom !== undefined) await parseFile(flags.file, createUserIdScan(flags.file));
  if (data.interleaving === undefined) assertAnalysable(data.file, data.design.variants, data.accumulators);
  return data;
}

async function parseFile(file: string, parser: LineParser<unknown>): Promise<void> {
  const source = await openLineSource(file);
  try {
    await parseChunks(withProgress(source), parser);
  } finally {
    progressDone();
  }
}

const CSV_ONLY = ['allocations', 'control', 'experimentFile', 'confidenceLevel', 'minSampleSize'] as const;
const FLAG_NAMES: Record<(typeof CSV_ONLY)[number], string> = {
  allocations: '--allocations',
  control: '--control',
  experimentFile: '--experiment-file',
  confidenceLevel: '--confidence-level',
  minSampleSize: '--min-sample-size',
};

/**
 * Picks the parser from the first non-blank line: `{` means a JSON Lines export, anything
 * else the CSV. Lines before it (blank ones) are replayed so line numbers stay right.
 */
class SniffingParser implements LineParser<void> {
  private inner: LineParser<unknown> | undefined;
  private pending = 0;
  private format: 'jsonl' | 'csv' = 'csv';
  private parsed: unknown;

  constructor(
    private readonly file: string,
    private readonly csvDesign: OfflineDesign | undefined,
    private readonly flags: OfflineFlags,
    private readonly duplicateCheck: DuplicateCheckMode,
    /** Present when the file may be a JSON Lines export (no CSV design given). */
    private readonly jsonlParser: typeof createJsonlExportParser | undefined,
  ) {}

  /** The first out-of-order user line, when the file is not sorted by user id. */
  get unsortedFrom(): number | undefined {
    return (this.parsed as { unsortedFrom?: number } | undefined)?.unsortedFrom;
  }

  line(text: string): void {
    if (this.inner === undefined) {
      if (text.trim() === '') {
        this.pending++;
        return;
      }
      this.inner = this.choose(text);
      for (; this.pending > 0; this.pending--) this.inner.line('');
    }
    this.inner.line(text);
  }

  finish(): void {
    this.inner ??= this.choose('');
    for (; this.pending > 0; this.pending--) this.inner.line('');
    this.parsed = this.inner.finish();
  }

  private choose(first: string): LineParser<unknown> {
    const trimmed = first.charCodeAt(0) === 0xfeff ? first.slice(1) : first;
    if (trimmed.trimStart().startsWith('{')) {
      const given = CSV_ONLY.filter((key) => this.flags[key] !== undefined).map((key) => FLAG_NAMES[key]);
      if (given.length > 0 || this.jsonlParser === undefined)
        throw usageError(`${given.join(', ')}: only for a CSV; ${this.file} is a JSON Lines export, which carries the experiment`);
      this.format = 'jsonl';
      return this.jsonlParser(this.file, this.duplicateCheck);
    }
    if (this.csvDesign === undefined) {
      throw usageError(`${this.file} is a CSV: give --allocations name=pct,... and --control name, or --experiment-file experiment.json`);
    }
    return createUserCsvParser(this.file, { variants: this.csvDesign.variants.map((v) => v.name), duplicateCheck: this.duplicateCheck });
  }

  result(): OfflineData {
    const parsed = this.parsed as
      | {
          experiment: OfflineDesign;
          accumulators: Map<string, VariantAccumulator>;
          performance: PerformanceRecord[];
          users: number;
          instances?: ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>>;
          interleaving?: readonly UserTeamCounts[];
        }
      | { accumulators: Map<string, VariantAccumulator>; users: number };
    if (this.format === 'jsonl' && 'experiment' in parsed) {
      return {
        file: this.file,
        format: 'jsonl',
        design: parsed.experiment,
        accumulators: parsed.accumulators,
        performance: parsed.performance,
        users: parsed.users,
        ...(parsed.instances === undefined ? {} : { instances: parsed.instances }),
        ...(parsed.interleaving === undefined ? {} : { interleaving: parsed.interleaving }),
      };
    }
    return {
      file: this.file,
      format: 'csv',
      design: this.csvDesign as OfflineDesign,
      accumulators: parsed.accumulators,
      performance: [],
      users: parsed.users,
    };
  }
}

/** Reports bytes read on a terminal's stderr, at most four times a second. */
async function* withProgress(source: LineSource): AsyncGenerator<string> {
  let last = Date.now();
  for await (const chunk of source.chunks) {
    yield chunk;
    const now = Date.now();
    if (now - last < 250) continue;
    last = now;
    const read = source.bytesRead();
    const share = source.size ? ` ${Math.min(100, Math.floor((read / source.size) * 100))}%` : '';
    progress(`reading ${source.name}:${share} (${formatCount(read / 1048576, 1)} MB)`);
  }
}

async function designFromFlags(flags: OfflineFlags): Promise<OfflineDesign | undefined> {
  if (flags.experimentFile !== undefined) {
    if (flags.allocations !== undefined || flags.control !== undefined) {
      throw usageError('give either --experiment-file or --allocations/--control, not both');
    }
    const ignored = (['confidenceLevel', 'minSampleSize'] as const).filter((key) => flags[key] !== undefined).map((key) => FLAG_NAMES[key]);
    if (ignored.length > 0)
      throw usageError(
        `${ignored.join(', ')}: only with --allocations; with --experiment-file, set confidence_level and minimum_sample_size in the file`,
      );
    return readExperimentFile(flags.experimentFile);
  }
  if (flags.allocations === undefined && flags.control === undefined) return undefined;
  if (flags.allocations === undefined) throw usageError('--control needs --allocations name=pct,... as well');
  if (flags.control === undefined) throw usageError('--allocations needs --control <name> as well (which variant is the control?)');
  const allocations = parseAllocations(flags.allocations);
  if (!allocations.some((a) => a.name === flags.control)) {
    throw usageError(
      `--control: "${flags.control}" is not one of the variants in --allocations (${allocations.map((a) => a.name).join(', ')})`,
    );
  }
  return {
    variants: allocations.map((a) => ({ ...a, is_control: a.name === flags.control })),
    confidence_level: flags.confidenceLevel ?? EXPERIMENT_DEFAULTS.confidence_level,
    minimum_sample_size: flags.minSampleSize ?? EXPERIMENT_DEFAULTS.minimum_sample_size,
  };
}

/** The experiment's creation JSON (or a served experiment): what analysis needs, checked with the server's rules. */
async function readExperimentFile(path: string): Promise<OfflineDesign> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const reason =
      error instanceof SyntaxError
        ? `not valid JSON: ${error.message}`
        : `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    throw usageError(`--experiment-file ${path}: ${reason}`);
  }
  const record = value as Partial<OfflineDesign> & { variants?: unknown };
  const fail = (message: string) => usageError(`--experiment-file ${path}: ${message}`);
  if (typeof record !== 'object' || record === null || !Array.isArray(record.variants))
    throw fail('expected an experiment object with a "variants" array');
  const variants = record.variants as Array<{ name?: unknown; traffic_allocation?: unknown; is_control?: unknown }>;
  variants.forEach((v, i) => {
    if (typeof v?.name !== 'string' || typeof v.is_control !== 'boolean') throw fail(`variants[${i}] needs "name" and "is_control"`);
    const issue = validateAllocation(v.traffic_allocation);
    if (issue !== undefined) throw fail(`variants[${i}].traffic_allocation: ${issue}`);
  });
  if (variants.length < 2) throw fail('an experiment needs at least two variants');
  if (variants.filter((v) => v.is_control === true).length !== 1) throw fail('exactly one variant must have "is_control": true');
  const sumIssue = validateAllocationSum(variants.map((v) => v.traffic_allocation as number));
  const confidence = record.confidence_level ?? EXPERIMENT_DEFAULTS.confidence_level;
  const minimum = record.minimum_sample_size ?? EXPERIMENT_DEFAULTS.minimum_sample_size;
  const issue = sumIssue ?? validateConfidenceLevel(confidence) ?? validateMinimumSampleSize(minimum);
  if (issue !== undefined) throw fail(issue);
  return { ...(record as OfflineDesign), confidence_level: confidence, minimum_sample_size: minimum };
}
