/**
 * Daily points from ONE export, for the report's charts, when its user lines carry time:
 * - `assigned_at` (ISO 8601): when the user was enrolled → users per variant per UTC day;
 * - `days` (`{"2026-03-01": {"impressions": 3, "clicks": 1, …}, …}`, count keys as the user line's,
 *   missing ones 0, adding up to the user's totals): the user's counts per UTC day of attribution
 *   → the cumulative analysis at the end of every day, hence the lift and its interval over time.
 * Streaming: a user adds its running counts to one "partial" accumulator per day from enrolment to
 * its last active day, and its totals to the "settled" accumulator of that last day; day D's data
 * is then every settled accumulator up to D merged with D's partial one (VariantAccumulator.merge).
 * Exports without these fields give no timeline (the report then plots one point per export).
 */
import { InputFileError } from '../io/input-file-error.js';
import type { LineParser, ParsedExport } from '../io/export-format.js';
import { COUNT_KEYS } from '../metrics.js';
import { createAccumulators, type VariantAccumulator } from '../stats/variant-accumulator.js';

const DAY_MS = 86_400_000;
/** More days than this are thinned to every k-th day (and the last) so charts stay legible. */
export const MAX_TIMELINE_POINTS = 120;

/** What one export says about time. */
export interface ExportTimeline {
  /** Cumulative users per variant at the end of each day (UTC midnight of the day, ms), when every user has assigned_at. */
  usersByDay?: Array<{ at: number; users: Record<string, number> }>;
  /** Cumulative per-variant accumulators at the end of each day, when every user also has days. */
  daily?: Array<{ at: number; accumulators: Map<string, VariantAccumulator> }>;
}

const dayOf = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

type Json = Record<string, unknown>;
type DayMap = Map<number, Map<string, VariantAccumulator>>;

/** Collects the timeline of user lines; `add` throws InputFileError on a malformed time field. */
export class TimelineCollector {
  private readonly enrolled = new Map<number, Map<string, number>>();
  private readonly settled: DayMap = new Map();
  private readonly partial: DayMap = new Map();
  private timed = 0;
  private withDays = 0;
  private readonly row = new Float64Array(COUNT_KEYS.length);

  constructor(private readonly variants: readonly string[]) {}

  /** One user line (already validated by the export parser); `fail` builds the error for a key. */
  add(record: Json, fail: (message: string, key: string) => InputFileError): void {
    if (record.assigned_at === undefined) return;
    const assignedMs = typeof record.assigned_at === 'string' ? Date.parse(record.assigned_at) : Number.NaN;
    if (!Number.isFinite(assignedMs)) throw fail('assigned_at must be an ISO 8601 time such as "2026-03-01T10:00:00Z"', 'assigned_at');
    const variant = record.variant as string;
    const enrolledDay = dayOf(assignedMs);
    const counts = this.enrolled.get(enrolledDay) ?? new Map<string, number>();
    counts.set(variant, (counts.get(variant) ?? 0) + 1);
    this.enrolled.set(enrolledDay, counts);
    this.timed++;
    if (record.days === undefined) return;
    this.addDays(record, variant, enrolledDay, fail);
    this.withDays++;
  }

  private addDays(record: Json, variant: string, enrolledDay: number, fail: (message: string, key: string) => InputFileError): void {
    const days = parseDays(record.days, fail);
    const totals = COUNT_KEYS.map((key) => record[key] as number);
    const sums = COUNT_KEYS.map((_, i) => days.reduce((sum, [, counts]) => sum + (counts[i] as number), 0));
    const off = COUNT_KEYS.findIndex(
      (_, i) => Math.abs((sums[i] as number) - (totals[i] as number)) > 1e-6 * Math.max(1, totals[i] as number),
    );
    if (off >= 0) throw fail(`days add up to ${COUNT_KEYS[off]} ${sums[off]}, not the user's ${totals[off]}`, 'days');
    const first = Math.min(enrolledDay, days[0]?.[0] ?? enrolledDay);
    const last = Math.max(enrolledDay, days[days.length - 1]?.[0] ?? enrolledDay);
    this.row.fill(0);
    let next = 0;
    for (let day = first; day < last; day += DAY_MS) {
      for (; next < days.length && (days[next] as [number, number[]])[0] <= day; next++)
        (days[next] as [number, number[]])[1].forEach((count, i) => (this.row[i] = (this.row[i] as number) + count));
      accumulatorFor(this.partial, day, this.variants, variant).addRow(this.row);
    }
    accumulatorFor(this.settled, last, this.variants, variant).addRow(Float64Array.from(totals));
  }

  /** The timeline of the export's `users`: {} when some user line lacks assigned_at, no daily data when some lacks days. */
  result(users: number): ExportTimeline {
    if (users === 0 || this.timed < users) return {};
    const enrolledDays = [...this.enrolled.keys()];
    const activeDays = [...this.settled.keys(), ...this.partial.keys()];
    const daily = this.withDays === users;
    const first = Math.min(...enrolledDays, ...activeDays);
    const last = Math.max(...enrolledDays, ...(daily ? activeDays : []));
    const days = thinned(first, last);
    const enrolledSoFar: Record<string, number> = Object.fromEntries(this.variants.map((v) => [v, 0]));
    const running = createAccumulators(this.variants);
    const usersByDay: NonNullable<ExportTimeline['usersByDay']> = [];
    const dailyPoints: NonNullable<ExportTimeline['daily']> = [];
    for (let day = first; day <= last; day += DAY_MS) {
      for (const [variant, n] of this.enrolled.get(day) ?? []) enrolledSoFar[variant] = (enrolledSoFar[variant] ?? 0) + n;
      for (const [variant, acc] of this.settled.get(day) ?? []) running.get(variant)?.merge(acc);
      if (!days.has(day)) continue;
      usersByDay.push({ at: day, users: { ...enrolledSoFar } });
      if (!daily) continue;
      const snapshot = createAccumulators(this.variants);
      for (const [variant, acc] of snapshot) {
        acc.merge(running.get(variant) as VariantAccumulator);
        const partial = this.partial.get(day)?.get(variant);
        if (partial) acc.merge(partial);
      }
      dailyPoints.push({ at: day, accumulators: snapshot });
    }
    return daily ? { usersByDay, daily: dailyPoints } : { usersByDay };
  }
}

function accumulatorFor(map: DayMap, day: number, variants: readonly string[], variant: string): VariantAccumulator {
  let byVariant = map.get(day);
  if (byVariant === undefined) {
    byVariant = createAccumulators(variants);
    map.set(day, byVariant);
  }
  return byVariant.get(variant) as VariantAccumulator;
}

/** Every day from first to last, or every k-th (always the last) when there are more than MAX_TIMELINE_POINTS. */
function thinned(first: number, last: number): Set<number> {
  const count = Math.round((last - first) / DAY_MS) + 1;
  const step = Math.ceil(count / MAX_TIMELINE_POINTS);
  const days = new Set<number>();
  for (let i = (count - 1) % step; i < count; i += step) days.add(first + i * DAY_MS);
  return days;
}

const COUNT_INDEX = new Map<string, number>(COUNT_KEYS.map((key, i) => [key, i]));

/** `days` as [day (ms), counts in COUNT_KEYS order], sorted by day. */
function parseDays(value: unknown, fail: (message: string, key: string) => InputFileError): Array<[number, number[]]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw fail('days must be an object of "YYYY-MM-DD" to counts', 'days');
  return Object.entries(value as Json)
    .map(([day, counts]): [number, number[]] => {
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
      if (!Number.isFinite(ms)) throw fail(`days: ${JSON.stringify(day)} is not a date "YYYY-MM-DD"`, 'days');
      if (counts === null || typeof counts !== 'object' || Array.isArray(counts))
        throw fail(`days.${day} must be an object of counts`, 'days');
      const row: number[] = COUNT_KEYS.map(() => 0);
      for (const [key, count] of Object.entries(counts as Json)) {
        const index = COUNT_INDEX.get(key);
        if (index === undefined) throw fail(`days.${day}: unknown count "${key}" (expected ${COUNT_KEYS.join(', ')})`, 'days');
        if (typeof count !== 'number' || !Number.isFinite(count) || count < 0)
          throw fail(`days.${day}.${key} must be a number ≥ 0`, 'days');
        row[index] = count;
      }
      return [ms, row];
    })
    .sort((a, b) => a[0] - b[0]);
}

/**
 * The export parser with the timeline alongside: every line goes to `inner` (which validates it
 * and accumulates the totals); user lines that carry assigned_at are also read for time.
 */
export function createTimelineExportParser(
  inner: LineParser<ParsedExport>,
  file: string,
): LineParser<{ parsed: ParsedExport; timeline: ExportTimeline }> {
  let collector: TimelineCollector | undefined;
  let lineNumber = 0;
  return {
    line(text: string): void {
      inner.line(text);
      lineNumber++;
      // Only the experiment line and lines with a time field are read twice.
      if (collector !== undefined ? !text.includes('"assigned_at"') : text.trim() === '') return;
      const record = JSON.parse(lineNumber === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Json;
      if (collector === undefined) {
        collector = new TimelineCollector((record.variants as Array<{ name: string }>).map((v) => v.name));
      } else if (record.type === 'user') {
        collector.add(record, (message, key) => new InputFileError(file, lineNumber, Math.max(1, text.indexOf(`"${key}"`) + 1), message));
      }
    },
    finish() {
      const parsed = inner.finish();
      return { parsed, timeline: collector ? collector.result(parsed.users) : {} };
    },
  };
}
