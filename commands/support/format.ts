/** Number formatting shared by the human views (no colour here: see output.ts). */

/** A metric value: 4 significant digits below 1, else 2 decimals; — for null. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value === 0) return '0';
  return Math.abs(value) < 1 ? value.toPrecision(4) : value.toFixed(2);
}

/** A share or lift as a signed percentage. */
export function formatPercent(value: number | null | undefined, signed = false, digits = 2): string {
  if (value === null || value === undefined) return '—';
  const text = `${(value * 100).toFixed(digits)}%`;
  return signed && value > 0 ? `+${text}` : text;
}

/** A p-value: 4 decimals, or an upper bound when tiny. */
export function formatP(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 0.0001) return value === 0 ? '<1e-16' : `${value.toExponential(1)}`;
  return value.toFixed(4);
}

/** An interval [low, high]. */
export function formatInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return '—';
  return `[${formatValue(low)}, ${formatValue(high)}]`;
}

/** Text cut to `width` characters, ending in … when cut (keeps table columns narrow). */
export function truncate(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** How long until `at`, coarsely: `in 45m`, `in 23h`, `in 6d`, `in 2y`. */
export function formatTimeUntil(at: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((at.getTime() - now.getTime()) / 60_000));
  if (minutes < 60) return `in ${minutes}m`;
  if (minutes < 48 * 60) return `in ${Math.floor(minutes / 60)}h`;
  const days = Math.floor(minutes / 1440);
  return days < 730 ? `in ${days}d` : `in ${Math.floor(days / 365)}y`;
}
