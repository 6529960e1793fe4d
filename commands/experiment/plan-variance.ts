/**
 * The spread `experiment plan` and `experiment create`'s warning assume (issue 30): the
 * delta-method variance measured in data by default — a pilot export or per-user CSV
 * (--pilot), or the experiment named by --from-experiment — a given --sd, or the binomial
 * assumption only when asked (--binomial). Without any of them a rate cannot be planned: the
 * binomial would under-plan whenever users differ, and silently is how it used to.
 */
import { createJsonlExportParser, createUserCsvParser, parseChunks, type LineParser } from '../../src/experiments/io/export-format.js';
import type { MetricName } from '../../src/experiments/metrics.js';
import { measuredVariance } from '../../src/experiments/stats/plan-variance.js';
import { BINOMIAL_ASSUMPTION, RATE_METRICS } from '../../src/experiments/stats/power.js';
import type { VariantAccumulator } from '../../src/experiments/stats/variant-accumulator.js';
import { usageError } from '../support/cli-error.js';
import { openLineSource } from '../support/line-source.js';

export interface VarianceFlags {
  sd?: number;
  pilot?: string;
  binomial?: boolean;
}

/** What the plan assumes, and what the data it came from says about baseline and units per user. */
export interface VarianceAssumption {
  sd: number | undefined;
  /** One line for the output: where σ came from. */
  assumption: string;
  kind: 'given' | 'pilot' | 'experiment' | 'binomial' | 'none';
  baseline?: number;
  units_per_user?: number;
}

/** From the flags, else the observed experiment's σ; a usage error when a rate has neither data nor --binomial. */
export async function resolveVariance(
  metric: MetricName,
  flags: VarianceFlags,
  observed?: { experiment_id: number; sd: number | null },
): Promise<VarianceAssumption> {
  const given = [flags.sd !== undefined, flags.binomial === true, flags.pilot !== undefined].filter(Boolean).length;
  if (given > 1) throw usageError('give one of --sd, --pilot and --binomial');
  if (flags.sd !== undefined) return { sd: flags.sd, assumption: `the given --sd ${flags.sd} per unit`, kind: 'given' };
  if (flags.binomial === true) return { sd: undefined, assumption: BINOMIAL_ASSUMPTION, kind: 'binomial' };
  if (flags.pilot !== undefined) {
    const { accumulators, control } = await readPilot(flags.pilot);
    const measured = measuredVariance(accumulators, metric, control);
    if (measured === undefined) throw usageError(`--pilot ${flags.pilot}: no two users with ${metric} units to measure a variance from`);
    return {
      sd: measured.sd,
      assumption: `delta-method variance of ${measured.users} users in ${flags.pilot} (users who differ included)`,
      kind: 'pilot',
      baseline: measured.baseline,
      units_per_user: measured.units_per_user,
    };
  }
  if (observed?.sd != null)
    return { sd: observed.sd, assumption: `delta-method variance of experiment ${observed.experiment_id}'s users`, kind: 'experiment' };
  if (!RATE_METRICS.has(metric)) return { sd: undefined, assumption: 'none', kind: 'none' };
  throw usageError(
    `no data to measure how much users differ on ${metric}: give --pilot FILE (an export or per-user CSV), ` +
      '--from-experiment ID or --sd, or --binomial to assume independent units (which under-plans when users differ)',
  );
}

/** The pilot's accumulators (an export: its variants and control; a CSV: any variants, no control). */
async function readPilot(file: string): Promise<{ accumulators: ReadonlyMap<string, VariantAccumulator>; control?: string }> {
  const source = await openLineSource(file);
  let inner: LineParser<unknown> | undefined;
  const sniffing: LineParser<unknown> = {
    line(text: string) {
      if (inner === undefined && text.trim() === '') return;
      inner ??= text
        .replace(/^\uFEFF/, '')
        .trimStart()
        .startsWith('{')
        ? createJsonlExportParser(file, 'table')
        : createUserCsvParser(file, { duplicateCheck: 'table' });
      inner.line(text);
    },
    finish() {
      if (inner === undefined) throw usageError(`--pilot ${file}: the file is empty`);
      return inner.finish();
    },
  };
  const parsed = (await parseChunks(source.chunks, sniffing)) as {
    accumulators: ReadonlyMap<string, VariantAccumulator>;
    experiment?: { variants: readonly { name: string; is_control: boolean }[] };
  };
  const control = parsed.experiment?.variants.find((v) => v.is_control)?.name;
  return { accumulators: parsed.accumulators, ...(control === undefined ? {} : { control }) };
}
