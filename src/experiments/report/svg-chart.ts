/**
 * Line charts as inline SVG for the HTML report: numbers in, markup out (no script, no
 * external resource, no style attribute — colours are presentation attributes, so the report's
 * strict Content-Security-Policy holds). Each series is a `<g class="series" data-series=…>`
 * holding its interval band, its line and one circle per point with a `<title>` tooltip.
 */
import { escapeHtml } from './escape.js';

export interface ChartPoint {
  x: number;
  /** null: no value at this x (the line breaks). */
  y: number | null;
  /** The interval around y; the band is drawn where both ends are known. */
  low?: number | null;
  high?: number | null;
}

export interface ChartSeries {
  name: string;
  points: readonly ChartPoint[];
}

export interface LineChartSpec {
  title: string;
  yLabel: string;
  series: readonly ChartSeries[];
  /** Labels of the x ticks (the report passes dates). */
  formatX: (x: number) => string;
  formatY?: (y: number) => string;
  /** Draws y = 0 (a difference's "no effect" line) and keeps it in range. */
  zeroLine?: boolean;
  width?: number;
  height?: number;
}

/** Series colours, distinguishable in print and for the common colour-vision deficiencies. */
export const SERIES_COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'] as const;

const MARGIN = { top: 28, right: 48, bottom: 44, left: 64 };

/** The colour of the i-th series (cycling). */
export function seriesColour(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length] as string;
}

/** A short number for axis labels: 3 significant digits, no trailing zeros. */
export function formatAxisNumber(value: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e6 || abs < 1e-4) return value.toExponential(1);
  return String(Number(value.toPrecision(3)));
}

/** About `count` round tick values (steps of 1, 2 or 5 × 10^k) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const rough = (max - min) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

interface Scale {
  min: number;
  max: number;
  at(value: number): number;
}

function linearScale(min: number, max: number, from: number, to: number): Scale {
  const span = max - min;
  return { min, max, at: (value) => (span === 0 ? (from + to) / 2 : from + ((value - min) / span) * (to - from)) };
}

function yDomain(spec: LineChartSpec): [number, number] {
  const values = spec.series.flatMap((s) => s.points.flatMap((p) => [p.y, p.low ?? null, p.high ?? null]));
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (spec.zeroLine) finite.push(0);
  if (finite.length === 0) return [0, 1];
  let min = Math.min(...finite);
  let max = Math.max(...finite);
  if (min === max) {
    const pad = Math.abs(min) * 0.1 || 1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.05;
  min -= pad;
  max += pad;
  return [min, max];
}

const coordinate = (value: number): string => value.toFixed(1);

/** Splits points into runs where `keep` holds, so lines and bands break at gaps. */
function runs<T>(points: readonly ChartPoint[], keep: (p: ChartPoint) => T | undefined): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  for (const point of points) {
    const value = keep(point);
    if (value === undefined) {
      if (current.length > 0) out.push(current);
      current = [];
    } else current.push(value);
  }
  if (current.length > 0) out.push(current);
  return out;
}

function finite(value: number | null | undefined): value is number {
  return value !== null && value !== undefined && Number.isFinite(value);
}

function seriesMarkup(series: ChartSeries, index: number, x: Scale, y: Scale, spec: LineChartSpec): string {
  const colour = seriesColour(index);
  const formatY = spec.formatY ?? formatAxisNumber;
  const bands = runs(series.points, (p) => (finite(p.y) && finite(p.low) && finite(p.high) ? p : undefined))
    .filter((run) => run.length > 1)
    .map((run) => {
      const upper = run.map((p) => `${coordinate(x.at(p.x))},${coordinate(y.at(p.high as number))}`);
      const lower = [...run].reverse().map((p) => `${coordinate(x.at(p.x))},${coordinate(y.at(p.low as number))}`);
      return `<path class="band" d="M${upper.join('L')}L${lower.join('L')}Z" fill="${colour}" fill-opacity="0.18" stroke="none"/>`;
    });
  const lines = runs(series.points, (p) => (finite(p.y) ? p : undefined))
    .filter((run) => run.length > 1)
    .map(
      (run) =>
        `<path class="line" d="M${run.map((p) => `${coordinate(x.at(p.x))},${coordinate(y.at(p.y as number))}`).join('L')}" fill="none" stroke="${colour}" stroke-width="2"/>`,
    );
  const points = series.points.filter((p) => finite(p.y));
  // An isolated point has no band: its interval is drawn as a whisker instead.
  const whiskers = points
    .filter((p) => finite(p.low) && finite(p.high) && points.length === 1)
    .map((p) => {
      const cx = coordinate(x.at(p.x));
      return `<path class="whisker" d="M${cx},${coordinate(y.at(p.low as number))}L${cx},${coordinate(y.at(p.high as number))}" stroke="${colour}" stroke-width="2"/>`;
    });
  const circles = points.map((p) => {
    const interval = finite(p.low) && finite(p.high) ? ` [${formatY(p.low)}, ${formatY(p.high)}]` : '';
    const tip = `${series.name} ${spec.formatX(p.x)}: ${formatY(p.y as number)}${interval}`;
    return `<circle class="point" cx="${coordinate(x.at(p.x))}" cy="${coordinate(y.at(p.y as number))}" r="3" fill="${colour}"><title>${escapeHtml(tip)}</title></circle>`;
  });
  return `<g class="series" data-series="${escapeHtml(series.name)}">${[...bands, ...lines, ...whiskers, ...circles].join('')}</g>`;
}

function xTicks(spec: LineChartSpec): number[] {
  const xs = [...new Set(spec.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  if (xs.length <= 6) return xs;
  const step = (xs.length - 1) / 5;
  return [...new Set(Array.from({ length: 6 }, (_, i) => xs[Math.round(i * step)] as number))];
}

function axesMarkup(spec: LineChartSpec, x: Scale, y: Scale, width: number, height: number): string {
  const formatY = spec.formatY ?? formatAxisNumber;
  const left = MARGIN.left;
  const bottom = height - MARGIN.bottom;
  const yTicks = niceTicks(y.min, y.max).map((v) => {
    const at = coordinate(y.at(v));
    return `<line class="grid" x1="${left}" x2="${width - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e3e3e3"/><text class="tick" x="${left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${escapeHtml(formatY(v))}</text>`;
  });
  const xLabels = xTicks(spec).map(
    (v) => `<text class="tick" x="${coordinate(x.at(v))}" y="${bottom + 16}" text-anchor="middle">${escapeHtml(spec.formatX(v))}</text>`,
  );
  const zero =
    spec.zeroLine && y.min <= 0 && y.max >= 0
      ? `<line class="zero" x1="${left}" x2="${width - MARGIN.right}" y1="${coordinate(y.at(0))}" y2="${coordinate(y.at(0))}" stroke="#555" stroke-dasharray="4 3"/>`
      : '';
  return [
    `<g class="axes">${yTicks.join('')}`,
    `<line x1="${left}" x2="${left}" y1="${MARGIN.top}" y2="${bottom}" stroke="#888"/>`,
    `<line x1="${left}" x2="${width - MARGIN.right}" y1="${bottom}" y2="${bottom}" stroke="#888"/>`,
    `${xLabels.join('')}${zero}`,
    `<text class="axis-label" x="14" y="${(MARGIN.top + bottom) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(MARGIN.top + bottom) / 2})">${escapeHtml(spec.yLabel)}</text></g>`,
  ].join('');
}

function legendMarkup(series: readonly ChartSeries[]): string {
  const items = series.map(
    (s, i) =>
      `<g class="legend-item" transform="translate(${MARGIN.left + i * 140},10)"><rect width="10" height="10" y="-8" fill="${seriesColour(i)}"/><text x="14" y="1">${escapeHtml(s.name)}</text></g>`,
  );
  return `<g class="legend">${items.join('')}</g>`;
}

/** A line chart (with interval bands where points carry low/high) as a standalone `<svg>` element. */
export function lineChart(spec: LineChartSpec): string {
  const width = spec.width ?? 640;
  const height = spec.height ?? 260;
  const xs = spec.series.flatMap((s) => s.points.map((p) => p.x));
  const xScale = linearScale(Math.min(...xs, Infinity), Math.max(...xs, -Infinity), MARGIN.left + 24, width - MARGIN.right);
  const [yMin, yMax] = yDomain(spec);
  const yScale = linearScale(yMin, yMax, height - MARGIN.bottom, MARGIN.top);
  const body =
    xs.length === 0
      ? `<text class="empty" x="${width / 2}" y="${height / 2}" text-anchor="middle">no data yet</text>`
      : `${axesMarkup(spec, xScale, yScale, width, height)}${spec.series.map((s, i) => seriesMarkup(s, i, xScale, yScale, spec)).join('')}`;
  const title = escapeHtml(spec.title);
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${title}"><title>${title}</title>${legendMarkup(spec.series)}${body}</svg>`;
}
