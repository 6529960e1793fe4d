/**
 * SRM and metrics per instance: users split by the instance of their canonical id; an instance
 * whose split is broken shows a mismatch there although the totals look fine; the export's
 * `instance` field carries it to the offline analysis.
 */
import { describe, expect, it } from 'vitest';
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { instanceOfUser } from '../../../../src/experiments/canonical-user-id.js';
import { parseJsonlExport, toJsonlLines, type UserRecord } from '../../../../src/experiments/io/export-format.js';
import { InstanceAccumulators, MIN_INSTANCE_SRM_USERS } from '../../../../src/experiments/stats/instance-breakdown.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { chiSquareSf } from '../../../../src/experiments/stats/distributions.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';

const design: AnalysisDesign = {
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
  confidence_level: 0.95,
  minimum_sample_size: 10,
};

/** 400 users on mastodon.social split 200/200 (with 10% vs 20% CTR), 300 on broken.example split 200/100, 50 local ones. */
function users(): UserRecord[] {
  const out: UserRecord[] = [];
  const add = (id: string, variant: string, clicks: number) =>
    out.push({ ...emptyCounts(), user_id: id, variant, impressions: 10, clicks });
  for (let i = 0; i < 200; i++) add(`@User${i}@Mastodon.Social`, 'control', 1);
  for (let i = 0; i < 200; i++) add(`user${i + 200}@mastodon.social`, 'treatment', 2);
  for (let i = 0; i < 200; i++) add(`acct:u${i}@broken.example`, 'treatment', 1);
  for (let i = 0; i < 100; i++) add(`u${i + 200}@broken.example`, 'control', 1);
  for (let i = 0; i < 25; i++) add(`local${i}`, 'control', 0);
  for (let i = 25; i < 50; i++) add(`local${i}`, 'treatment', 0);
  return out;
}

function analyse(records: readonly UserRecord[]) {
  const accumulators = createAccumulators(['control', 'treatment']);
  const instances = new InstanceAccumulators();
  for (const user of records) {
    accumulators.get(user.variant)?.add(user);
    instances.add(instanceOfUser(user.user_id), user.variant, user);
  }
  return analyzeExperiment(design, accumulators, { instances: instances.entries() });
}

describe('by_instance', () => {
  const result = analyse(users());

  it('counts users per variant per instance, most users first', () => {
    expect(result.by_instance?.map((row) => [row.instance, row.users, row.sample_sizes])).toEqual([
      ['mastodon.social', 400, { control: 200, treatment: 200 }],
      ['broken.example', 300, { control: 100, treatment: 200 }],
      ['local', 50, { control: 25, treatment: 25 }],
    ]);
  });

  it("tests each instance's split with enough users: the broken one mismatches (chi-square 33.3, p = Q(33.3; 1))", () => {
    const [social, broken, local] = result.by_instance ?? [];
    expect(social?.srm).toEqual({ chi_square: 0, p_value: 1, mismatch: false });
    // Expected 150/150: (100-150)²/150 + (200-150)²/150 = 33.33…; p by the chi-square survival function with 1 df.
    expect(broken?.srm?.chi_square).toBeCloseTo(100 / 3, 12);
    expect(broken?.srm?.p_value).toBeCloseTo(chiSquareSf(100 / 3, 1), 15);
    expect(broken?.srm?.mismatch).toBe(true);
    expect(local?.users).toBeLessThan(MIN_INSTANCE_SRM_USERS);
    expect(local?.srm).toBeNull();
    // The totals (325 / 425 of 750) would not show the broken instance as clearly.
    expect(result.sample_sizes).toEqual({ control: 325, treatment: 425 });
  });

  it('reports each metric per instance and variant', () => {
    const social = result.by_instance?.[0];
    expect(social?.metrics.control?.click_through_rate).toBeCloseTo(0.1, 12);
    expect(social?.metrics.treatment?.click_through_rate).toBeCloseTo(0.2, 12);
    expect(result.by_instance?.[2]?.metrics.control?.click_through_rate).toBe(0);
  });

  it('travels in the export: each user line carries its instance and the offline analysis gives the same breakdown', async () => {
    const records = users().map((user) => ({ ...user, instance: instanceOfUser(user.user_id) }));
    const lines = [...toJsonlLines({ id: 1, ...design }, records, [])];
    expect(JSON.parse(lines[1] as string)).toMatchObject({ type: 'user', instance: 'mastodon.social' });
    const parsed = await parseJsonlExport(
      (async function* () {
        yield* lines;
      })(),
      'export.jsonl',
    );
    expect(parsed.instances).toBeDefined();
    const offline = analyzeExperiment(parsed.experiment, parsed.accumulators, { instances: parsed.instances });
    expect(offline.by_instance).toEqual(result.by_instance);
  });

  it('has no breakdown for an export whose user lines lack the instance (made before it existed)', async () => {
    const lines = [...toJsonlLines({ id: 1, ...design }, users(), [])];
    const parsed = await parseJsonlExport(
      (async function* () {
        yield* lines;
      })(),
      'old.jsonl',
    );
    expect(parsed.instances).toBeUndefined();
    expect(analyzeExperiment(parsed.experiment, parsed.accumulators)).not.toHaveProperty('by_instance');
  });
});
