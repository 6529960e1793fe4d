/** Human output of the experiment resource: one-line summaries, the list, the status report with bars. */
import type { Experiment, ExperimentStatusReport } from '../../src/experiments/experiment-response.schema.js';
import { srmLines } from './analysis-view.js';
import { formatPercent } from './format.js';
import { colours, formatCount, renderTable, useRichOutput } from './output.js';

const STATUS_COLOUR = { DRAFT: 'gray', ACTIVE: 'green', PAUSED: 'yellow', COMPLETED: 'blue' } as const;

function statusText(status: string): string {
  const colour = STATUS_COLOUR[status as keyof typeof STATUS_COLOUR];
  return colour === undefined ? status : colours()[colour](status);
}

/** `experiment 7 "name": ACTIVE (control 50%, treatment 50%)`. */
export function experimentSummary(experiment: Experiment): string {
  const variants = experiment.variants.map((v) => `${v.name}${v.is_control ? ' (control)' : ''} ${v.traffic_allocation}%`).join(', ');
  return `experiment ${experiment.id} "${experiment.name}": ${statusText(experiment.status)} — ${variants}`;
}

/** The list as a table. */
export function renderExperimentList(experiments: Experiment[]): string {
  if (experiments.length === 0) return 'No experiments.';
  const rows = experiments.map((e) => [
    e.id,
    e.name,
    statusText(e.status),
    e.variants.map((v) => `${v.name} ${v.traffic_allocation}%`).join(', '),
    `${e.traffic_percentage}%`,
    e.started_at ?? '—',
  ]);
  return renderTable(['id', 'name', 'status', 'variants', 'traffic', 'started'], rows);
}

/** Bar glyphs: block characters on a rich terminal, ASCII elsewhere (pipes and logs get no drawing characters). */
const BAR_GLYPHS = {
  rich: { filled: '█', empty: '░', tickFilled: '▓', tickEmpty: '┆' },
  plain: { filled: '#', empty: '.', tickFilled: '|', tickEmpty: '|' },
} as const;

function barGlyphs(): (typeof BAR_GLYPHS)[keyof typeof BAR_GLYPHS] {
  return useRichOutput() ? BAR_GLYPHS.rich : BAR_GLYPHS.plain;
}

/** A 20-cell bar of a share, with the allocation marked by a tick where it falls. */
export function shareBar(share: number, allocation: number, width = 20): string {
  const c = colours();
  const glyph = barGlyphs();
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  const tick = Math.max(0, Math.min(width - 1, Math.round((allocation / 100) * width) - 1));
  let bar = '';
  for (let i = 0; i < width; i++)
    bar += i === tick ? (i < filled ? glyph.tickFilled : glyph.tickEmpty) : i < filled ? glyph.filled : glyph.empty;
  return c.cyan(bar);
}

/** Name, status, users assigned, a row per variant with count / share / allocation / bar, then the SRM verdict. */
export function renderStatus(report: ExperimentStatusReport): string {
  const c = colours();
  const rows = report.variants.map((v) => [
    v.blocked ? `${v.name} ${c.red('(blocked)')}` : v.name,
    formatCount(v.users_assigned),
    formatPercent(v.share, false, 1),
    `${v.traffic_allocation}%`,
    shareBar(v.share, v.traffic_allocation),
  ]);
  return [
    `${c.bold(`Experiment ${report.id} "${report.name}"`)}: ${statusText(report.status)}`,
    `Users assigned: ${formatCount(report.users_assigned)}`,
    renderTable(['variant', 'users', 'share', 'allocation', `share (${barGlyphs().tickEmpty} = allocation)`], rows),
    ...srmLines(report),
  ].join('\n');
}
