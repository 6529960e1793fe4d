/**
 * The gates agent (enforceGates) on a real app and database: it blocks a treatment only on a
 * `fail` verdict — never on `inconclusive`, whatever the reason, nor the control — records the
 * failing gates with their intervals as blocked_reason, and logs each variant's verdict when it
 * changes rather than at every check. The results service is replaced by one returning given
 * reports so that each verdict can be fed in; blocking, the database and the runtime are real.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExperimentGates } from '../../../src/experiments/gates/experiment-gates.schema.js';
import { DEFAULT_GATE_THRESHOLDS } from '../../../src/experiments/experiment-defaults.js';
import type { ExperimentResultsService } from '../../../server/experiments/experiment-results.service.js';
import { enforceGates, type GatesAgentDeps } from '../../../server/experiments/gates.agent.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
});
afterEach(async () => t.close());

async function activeExperiment(): Promise<number> {
  const id = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() })).json().data.id;
  await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
  return id;
}

type Gate = ExperimentGates['variants'][number]['gates'][number];
const ctrGate = (verdict: Gate['verdict'], ci: [number, number], reason?: Gate['reason']): Gate => ({
  gate: 'min_click_through_rate',
  value: (ci[0] + ci[1]) / 2,
  threshold: 0.05,
  comparator: '>=',
  ci_low: ci[0],
  ci_high: ci[1],
  rule: 'bounds',
  verdict,
  ...(reason ? { reason } : {}),
});

function report(id: number, treatment: Gate, control: Gate = ctrGate('pass', [0.07, 0.09])): ExperimentGates {
  const variant = (name: string, is_control: boolean, gate: Gate) => ({
    name,
    is_control,
    blocked: false,
    users: 5000,
    verdict: gate.verdict,
    gates: [gate],
  });
  return {
    experiment_id: id,
    verdict: treatment.verdict === 'fail' || control.verdict === 'fail' ? 'fail' : 'inconclusive',
    rule: 'bounds',
    srm: { chi_square: 0, p_value: 1, mismatch: false },
    thresholds: { ...DEFAULT_GATE_THRESHOLDS },
    minimum_sample_size: 1000,
    variants: [variant('control', true, control), variant('treatment', false, treatment)],
  };
}

function deps(reports: ExperimentGates[], logged: unknown[]): GatesAgentDeps {
  const feature = t.app.experiments;
  const results = { gates: async () => reports.shift() as ExperimentGates } as unknown as ExperimentResultsService;
  const log = { info: (entry: unknown) => logged.push(['info', entry]), warn: (entry: unknown) => logged.push(['warn', entry]) };
  return {
    db: t.database.db,
    experiments: feature.experiments,
    results,
    runtime: feature.runtime,
    now: () => Date.parse('2026-11-23T06:00:00Z'),
    log: log,
  };
}

const blockedOf = async (id: number) =>
  (await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: admin }))
    .json()
    .data.variants.map((v: { name: string; blocked: boolean; blocked_reason: string | null }) => [v.name, v.blocked, v.blocked_reason]);

describe('enforceGates', () => {
  it('never blocks on inconclusive (an interval spanning the threshold), blocks on the first fail, and logs verdict changes only', async () => {
    const id = await activeExperiment();
    const logged: unknown[] = [];
    const spanning = ctrGate('inconclusive', [0.047, 0.053], 'interval spans threshold');
    const reports = [report(id, spanning), report(id, spanning), report(id, ctrGate('fail', [0.031, 0.046]))];
    const agent = deps(reports, logged);
    const seen = new Map();

    expect(await enforceGates(agent, seen)).toEqual({
      blocked: [],
      verdicts: [{ experimentId: id, variant: 'treatment', verdict: 'inconclusive', blocked: false }],
    });
    expect(await enforceGates(agent, seen)).toMatchObject({ blocked: [] });
    expect(await blockedOf(id)).toEqual([
      ['control', false, null],
      ['treatment', false, null],
    ]);
    // One log line for the first inconclusive verdict, none for the unchanged second check.
    expect(logged).toEqual([['info', { experiment: id, variant: 'treatment', verdict: 'inconclusive', rule: 'bounds' }]]);

    const third = await enforceGates(agent, seen);
    expect(third.blocked).toEqual([{ experimentId: id, variant: 'treatment' }]);
    expect(await blockedOf(id)).toEqual([
      ['control', false, null],
      ['treatment', true, 'failed min_click_through_rate: 0.0385 [0.031, 0.046] vs >= 0.05'],
    ]);
    expect(logged.slice(1)).toEqual([
      ['info', { experiment: id, variant: 'treatment', verdict: 'fail', rule: 'bounds' }],
      ['warn', { experiment: id, variant: 'treatment', failing: ['min_click_through_rate: 0.0385 [0.031, 0.046] vs >= 0.05'] }],
    ]);
  });

  it('never blocks the control, even when it fails', async () => {
    const id = await activeExperiment();
    const agent = deps([report(id, ctrGate('pass', [0.06, 0.07]), ctrGate('fail', [0.01, 0.02]))], []);
    expect((await enforceGates(agent)).blocked).toEqual([]);
    expect((await blockedOf(id)).map((v: unknown[]) => v[1])).toEqual([false, false]);
  });
});
