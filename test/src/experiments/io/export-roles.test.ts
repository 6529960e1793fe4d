/**
 * The export's experiment line carries the roles (primary_metric, guardrail_metrics) and the
 * gate rule to offline analysis, and stays `"type":"experiment"` when the experiment has its
 * own `type` (ab | interleaving), which travels as `experiment_type` and comes back as `type`.
 */
import { describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../../src/experiments/stats/analysis.js';
import { experimentLine, parseJsonlExport, userLine } from '../../../../src/experiments/io/export-format.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';

const experiment = {
  id: 4,
  type: 'ab',
  confidence_level: 0.95,
  minimum_sample_size: 1,
  primary_metric: 'interaction_rate',
  guardrail_metrics: ['session_duration'],
  gate_rule: 'point',
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
};

async function parse(lines: string[]) {
  return parseJsonlExport(
    (async function* () {
      yield* lines;
    })(),
    'export.jsonl',
  );
}

describe('the experiment line of an export', () => {
  it('keeps its line type and carries the experiment type, roles and gate rule', async () => {
    const line = JSON.parse(experimentLine(experiment));
    expect(line).toMatchObject({ type: 'experiment', experiment_type: 'ab', guardrail_metrics: ['session_duration'], gate_rule: 'point' });
    const user = (variant: string, i: number) =>
      userLine({ ...emptyCounts(), user_id: `${variant}${i}`, variant, impressions: 5, sessions: 1 });
    const parsed = await parse([
      experimentLine(experiment),
      user('control', 1),
      user('control', 2),
      user('treatment', 1),
      user('treatment', 2),
    ]);
    expect(parsed.experiment).toMatchObject({ type: 'ab', primary_metric: 'interaction_rate', gate_rule: 'point' });
    const result = analyzeExperiment(parsed.experiment, parsed.accumulators);
    expect(result.primary_metric).toBe('interaction_rate');
    expect(result.guardrail_metrics).toEqual(['session_duration']);
    expect(result.metric_roles.click_through_rate).toBe('exploratory');
  });
});
