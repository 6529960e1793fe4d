/** What `recsvc demo traffic` counted, and how its summary reads (text or --json). */
import type { Experiment, Variant } from '../../src/experiments/experiment-response.schema.js';
import type { Visit, VisitModel } from '../../src/experiments/simulated-visit.js';
import { formatCount, renderTable } from '../support/output.js';
import type { TrafficOptions } from './traffic.options.js';

/** One variant's simulated users (or those outside the experiment's traffic: name null). */
export interface TrafficRow {
  name: string | null;
  is_control: boolean;
  /** The planted click probability per shown post. */
  click_probability: number;
  users: number;
  impressions: number;
  clicks: number;
  favourites: number;
  feedback_more: number;
  feedback_less: number;
}

/** The JSON summary of a run. */
export interface TrafficSummary {
  experiment_id: number;
  experiment_name: string;
  seed: number;
  ctr: number;
  lift: number;
  identities: string;
  users_requested: number;
  users_simulated: number;
  stopped_by: 'users' | 'duration';
  elapsed_seconds: number;
  variants: Array<TrafficRow & { observed_ctr: number | null; observed_lift: number | null }>;
  not_enrolled: TrafficRow;
  events: { accepted: number; rejected: number; rejected_by_reason: Record<string, number> };
  requests: number;
  waits: number;
}

/** The running counts of a run. */
export interface RunTally {
  readonly head: Omit<TrafficSummary, 'users_simulated' | 'stopped_by' | 'elapsed_seconds' | 'variants' | 'not_enrolled' | 'events'>;
  readonly rows: TrafficRow[];
  readonly outside: TrafficRow;
  readonly events: TrafficSummary['events'];
  users: number;
  requests: number;
  waits: number;
  record(variant: Variant | undefined, shown: number, visit: Visit, judged: TrafficSummary['events']): void;
}

const emptyRow = (name: string | null, isControl: boolean, probability: number): TrafficRow => ({
  name,
  is_control: isControl,
  click_probability: probability,
  users: 0,
  impressions: 0,
  clicks: 0,
  favourites: 0,
  feedback_more: 0,
  feedback_less: 0,
});

/** Empty counts for the experiment's variants, in its order. */
export function newTally(experiment: Experiment, model: VisitModel, options: TrafficOptions, identities: string): RunTally {
  const rows = experiment.variants.map((v) => emptyRow(v.name, v.is_control, v.is_control ? model.ctr : model.ctr * (1 + model.lift)));
  const tally: RunTally = {
    head: {
      experiment_id: experiment.id,
      experiment_name: experiment.name,
      seed: options.seed,
      ctr: model.ctr,
      lift: model.lift,
      identities,
      users_requested: options.users,
      requests: 0,
      waits: 0,
    },
    rows,
    outside: emptyRow(null, false, model.ctr),
    events: { accepted: 0, rejected: 0, rejected_by_reason: {} },
    users: 0,
    requests: 0,
    waits: 0,
    record(variant, shown, visit, judged) {
      const row = rows.find((r) => r.name === variant?.name) ?? tally.outside;
      row.users += 1;
      row.impressions += shown;
      row.clicks += visit.clicked.length;
      row.favourites += visit.favourited.length;
      if (visit.feedback?.value === 'more') row.feedback_more += 1;
      if (visit.feedback?.value === 'less') row.feedback_less += 1;
      tally.users += 1;
      tally.events.accepted += judged.accepted;
      tally.events.rejected += judged.rejected;
      for (const [reason, count] of Object.entries(judged.rejected_by_reason))
        tally.events.rejected_by_reason[reason] = (tally.events.rejected_by_reason[reason] ?? 0) + count;
    },
  };
  return tally;
}

/** The summary: per variant the observed click-through rate and its lift over the control's. */
export function toSummary(tally: RunTally, stoppedBy: 'users' | 'duration', elapsedSeconds: number): TrafficSummary {
  const ctrOf = (row: TrafficRow) => (row.impressions === 0 ? null : row.clicks / row.impressions);
  const control = tally.rows.find((row) => row.is_control);
  const controlCtr = control === undefined ? null : ctrOf(control);
  return {
    ...tally.head,
    users_simulated: tally.users,
    stopped_by: stoppedBy,
    elapsed_seconds: Math.round(elapsedSeconds * 10) / 10,
    variants: tally.rows.map((row) => {
      const observed = ctrOf(row);
      const lift = row.is_control || observed === null || controlCtr === null || controlCtr === 0 ? null : observed / controlCtr - 1;
      return { ...row, observed_ctr: observed, observed_lift: lift };
    }),
    not_enrolled: tally.outside,
    events: tally.events,
    requests: tally.requests,
    waits: tally.waits,
  };
}

const percent = (share: number | null, digits = 1) => (share === null ? '—' : `${(share * 100).toFixed(digits)}%`);
const signed = (share: number | null) => (share === null ? '—' : `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)}%`);

/** The text summary: a headline, a table per variant, what was planted, what to run next. */
export function summaryLines(s: TrafficSummary): string[] {
  const why = s.stopped_by === 'duration' ? ` (stopped by --duration before ${formatCount(s.users_requested)})` : '';
  const rows = [...s.variants, ...(s.not_enrolled.users > 0 ? [{ ...s.not_enrolled, observed_ctr: null, observed_lift: null }] : [])];
  const table = renderTable(
    ['variant', 'users', 'impressions', 'clicks', 'CTR', 'planted', 'lift', 'favourites', 'feedback +/-'],
    rows.map((row) => [
      row.name ?? '(not enrolled)',
      formatCount(row.users),
      formatCount(row.impressions),
      formatCount(row.clicks),
      percent(row.impressions === 0 ? null : row.clicks / row.impressions),
      percent(row.click_probability),
      row.is_control ? 'control' : signed(row.observed_lift),
      formatCount(row.favourites),
      `${row.feedback_more}/${row.feedback_less}`,
    ]),
  );
  const refused = Object.entries(s.events.rejected_by_reason)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const id = s.experiment_id;
  return [
    `demo traffic on experiment ${id} "${s.experiment_name}": ${formatCount(s.users_simulated)} users in ${s.elapsed_seconds}s${why}, ` +
      `seed ${s.seed}, ${s.identities}`,
    table,
    `planted: click probability ${percent(s.ctr)} in the control, lift ${signed(s.lift)} in every other variant`,
    `events: ${formatCount(s.events.accepted)} accepted, ${formatCount(s.events.rejected)} refused${refused === '' ? '' : ` (${refused})`}; ` +
      `${formatCount(s.requests)} requests${s.waits > 0 ? `, ${s.waits} waits asked by the server` : ''}`,
    `next: recsvc experiment analyze ${id} · recsvc gates check ${id} · recsvc experiment report ${id}`,
  ];
}
