/** The terminal view of `experiment plan` (and the JSON shape it prints with --json). */
import type { Duration, Plan } from '../../src/experiments/stats/power.js';
import { formatPercent } from '../support/format.js';
import { formatCount, renderTable } from '../support/output.js';

/** Traffic observed in a running experiment (`--from-experiment`). */
export interface ObservedTraffic {
  experiment_id: number;
  active_days: number;
  /** Users enrolled in all its variants. */
  users: number;
  traffic_percentage: number;
  /** New users per day before the traffic percentage: users / active_days / (traffic% / 100). */
  daily_users: number;
  /** The control's metric value (null when its denominator is 0). */
  baseline: number | null;
  /** The control's denominator units per enrolled user (null without any). */
  units_per_user: number | null;
  /** Per-unit standard deviation from the analysis' standard error (null without a test); the plan uses it unless --sd is given. */
  sd: number | null;
}

/** A number to 4 significant digits without trailing zeros (0.05, 0.055, 1.2e-5); — for null. */
function formatValue(value: number | null): string {
  return value === null ? '—' : String(Number(value.toPrecision(4)));
}

/** The singular of a plural unit ("impressions" → "impression"; each term of a sum). */
function singular(plural: string): string {
  return plural
    .split(' + ')
    .map((word) => (word.endsWith('s') ? word.slice(0, -1) : word))
    .join(' + ');
}

/** A number and its noun in agreement as shown: "1 impression", "8.33 impressions", "1,000 users". */
function quantity(value: number, plural: string, digits = 0): string {
  const shown = formatCount(value, digits);
  return `${shown} ${shown === '1' ? singular(plural) : plural}`;
}

export interface PlanReport extends Plan {
  power_at_minimum_sample_size: { minimum_sample_size: number; power: number };
  duration: Duration | null;
  observed: ObservedTraffic | null;
  /** Where the standard deviation came from (plan-variance.ts), printed with the plan. */
  assumption: string;
}

function effectText(report: PlanReport): string {
  const relative = report.relative_effect === null ? '' : `${formatPercent(report.relative_effect, true)}, `;
  const absolute = report.absolute_effect > 0 ? `+${formatValue(report.absolute_effect)}` : formatValue(report.absolute_effect);
  return `${formatValue(report.baseline)} → ${formatValue(report.target)} (${relative}${absolute} absolute)`;
}

/** The plan as a few lines and a per-variant table. */
export function renderPlan(report: PlanReport): string {
  const lines: string[] = [];
  if (report.observed !== null) {
    const o = report.observed;
    lines.push(
      `Observed in experiment ${o.experiment_id} over ${o.active_days.toFixed(1)} active days: ${quantity(o.users, 'users')} ` +
        `at ${o.traffic_percentage}% traffic (${formatCount(o.daily_users, 1)} new users/day), baseline ${formatValue(o.baseline)}, ` +
        `${formatValue(o.units_per_user)} ${formatValue(o.units_per_user) === '1' ? singular(report.unit) : report.unit} per user, ` +
        `sd ${formatValue(o.sd)} per ${singular(report.unit)}`,
    );
  }
  const correction =
    report.correction === 'bonferroni'
      ? `, ${formatValue(report.comparison_alpha)} per comparison (alpha / treatments, valid for Holm)`
      : '';
  lines.push(`Plan for ${report.metric} per ${singular(report.unit)}: ${effectText(report)}`);
  lines.push(`two-sided alpha ${formatValue(report.alpha)}${correction}; power ${formatPercent(report.power, false, 0)}`);
  const sds =
    report.control_sd === report.treatment_sd
      ? formatValue(report.control_sd)
      : `${formatValue(report.control_sd)} (control), ${formatValue(report.treatment_sd)} (treatment)`;
  lines.push(`standard deviation per ${singular(report.unit)}: ${sds}`);
  lines.push(`Assumption: ${report.assumption}`);
  const method =
    report.method === 'sequential'
      ? `sequential (read at any time): the read at the planned size needs |z| > ${formatValue(report.critical_value)}, ` +
        `tuned narrowest at ${formatCount(report.sequential_tuning?.target_sample_size ?? 0)} users (create with minimum_sample_size ${formatCount(report.minimum_sample_size)})`
      : `fixed (one read at the planned size): |z| > ${formatValue(report.critical_value)}; reading earlier and stopping raises false positives`;
  lines.push(`Method: ${method}`);
  lines.push('');
  const rows = report.variants.map((v) => [
    v.is_control && v.name !== 'control' ? `${v.name} (control)` : v.name,
    formatPercent(v.share, false, 1),
    formatCount(Math.ceil(v.units)),
    formatCount(v.users),
  ]);
  rows.push(['total', '', formatCount(Math.ceil(report.total_units)), formatCount(report.total_users)]);
  lines.push(renderTable(['variant', 'share', report.unit, 'users'], rows));
  lines.push('');
  lines.push(
    `minimum_sample_size: ${quantity(report.minimum_sample_size, 'users')} per variant ` +
      `(at ${quantity(report.units_per_user, report.unit, 2)} per user)`,
  );
  const current = report.power_at_minimum_sample_size;
  lines.push(`power at minimum_sample_size ${formatCount(current.minimum_sample_size)}: ${formatPercent(current.power, false, 1)}`);
  const d = report.duration;
  lines.push(
    d === null
      ? 'duration: give --daily-users (or --from-experiment) to estimate it'
      : `duration: ${quantity(d.days, 'days')} at ${formatCount(d.daily_users, 1)} new users/day × ${d.traffic_percentage}% traffic ` +
          `(${formatCount(d.enrolled_per_day, 1)} enrolled/day)`,
  );
  return lines.join('\n');
}
