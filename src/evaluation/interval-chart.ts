/**
 * A dot-and-whisker chart as inline SVG (one row per ranker: the estimate and its interval),
 * in the HTML report's style: no script, no style attribute, colours as presentation
 * attributes, every string escaped.
 */
import { escapeHtml } from '../experiments/report/escape.js';
import { formatAxisNumber, niceTicks, seriesColour } from '../experiments/report/svg-chart.js';

export interface IntervalRow {
  readonly label: string;
  readonly value: number;
  readonly low: number;
  readonly high: number;
  /** Drawn in the first series colour (candidates), else grey (baselines). */
  readonly highlight: boolean;
}

/** The chart of rows, with an optional reference line (0 for differences). */
export function intervalChart(title: string, rows: readonly IntervalRow[], reference?: number): string {
  const width = 640;
  const rowHeight = 24;
  const left = 150;
  const right = 24;
  const top = 30;
  const height = top + rows.length * rowHeight + 30;
  const values = rows.flatMap((r) => [r.low, r.high, r.value]).filter(Number.isFinite);
  if (reference !== undefined) values.push(reference);
  let min = values.length === 0 ? 0 : Math.min(...values);
  let max = values.length === 0 ? 1 : Math.max(...values);
  if (min === max) [min, max] = [min - 0.05, max + 0.05];
  const pad = (max - min) * 0.05;
  [min, max] = [min - pad, max + pad];
  const x = (v: number): string => (left + ((v - min) / (max - min)) * (width - left - right)).toFixed(1);
  const bottom = top + rows.length * rowHeight;
  const ticks = niceTicks(min, max).map(
    (t) =>
      `<line x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${bottom}" stroke="#e3e3e3"/><text class="tick" x="${x(t)}" y="${bottom + 16}" text-anchor="middle">${escapeHtml(formatAxisNumber(t))}</text>`,
  );
  const refLine =
    reference === undefined
      ? ''
      : `<line class="zero" x1="${x(reference)}" x2="${x(reference)}" y1="${top}" y2="${bottom}" stroke="#555" stroke-dasharray="4 3"/>`;
  const marks = rows.map((r, i) => {
    const y = (top + i * rowHeight + rowHeight / 2).toFixed(1);
    const colour = r.highlight ? seriesColour(0) : '#777';
    const tip = `${r.label}: ${formatAxisNumber(r.value)} [${formatAxisNumber(r.low)}, ${formatAxisNumber(r.high)}]`;
    return (
      `<g class="row" data-row="${escapeHtml(r.label)}"><text x="${left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeHtml(r.label)}</text>` +
      `<line x1="${x(r.low)}" x2="${x(r.high)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>` +
      `<circle cx="${x(r.value)}" cy="${y}" r="4" fill="${colour}"><title>${escapeHtml(tip)}</title></circle></g>`
    );
  });
  const label = escapeHtml(title);
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${label}"><title>${label}</title><text x="${left}" y="16">${label}</text>${ticks.join('')}${refLine}${marks.join('')}</svg>`;
}
