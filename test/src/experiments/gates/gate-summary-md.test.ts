import { describe, expect, it } from 'vitest';
import {
  escapeMarkdown,
  gateSummaryMarkdown,
  STEP_SUMMARY_MAX_BYTES,
  type GateSummaryInput,
} from '../../../../src/experiments/gates/gate-summary-md.js';
import type { GateResult } from '../../../../src/experiments/gates/gates.js';

const ctr = (variant: string, verdict: GateResult['verdict'], extra: Partial<GateResult> = {}): GateResult => ({
  variant,
  gate: 'min_click_through_rate',
  value: 0.0612,
  threshold: 0.05,
  comparator: '>=',
  ci_low: 0.0551,
  ci_high: 0.0673,
  rule: 'bounds',
  verdict,
  ...extra,
});

function report(variants: GateSummaryInput['variants'], verdict: GateResult['verdict'] = 'pass'): GateSummaryInput {
  return {
    experiment_id: 7,
    source: 'exp7.jsonl',
    verdict,
    srm: { chi_square: 0.2, p_value: 0.65, mismatch: false },
    minimum_sample_size: 1000,
    variants,
  };
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('gateSummaryMarkdown', () => {
  it('shows the p95 gate in milliseconds in value, interval and threshold, as the terminal does; rates stay plain', () => {
    const p95: GateResult = {
      variant: 'treatment',
      gate: 'max_response_time_p95',
      value: 182.5,
      threshold: 200,
      comparator: '<=',
      ci_low: 170.25,
      ci_high: 195,
      rule: 'bounds',
      verdict: 'pass',
    };
    const md = gateSummaryMarkdown(
      report([{ name: 'treatment', is_control: false, users: 1180, verdict: 'pass', gates: [p95, ctr('treatment', 'pass')] }]),
    );
    expect(md).toContain('| treatment | 1,180 | max_response_time_p95 | 182.5 ms | [170.25, 195] ms | ≤ 200 ms | ✅ pass |');
    expect(md).toContain('| treatment | 1,180 | min_click_through_rate | 0.0612 | [0.0551, 0.0673] | ≥ 0.05 | ✅ pass |');
  });

  it('writes a heading with the verdict, the sample ratio and one table row per variant x gate', () => {
    const md = gateSummaryMarkdown(
      report(
        [
          { name: 'control', is_control: true, users: 1200, verdict: 'pass', gates: [ctr('control', 'pass')] },
          {
            name: 'treatment',
            is_control: false,
            users: 1180,
            verdict: 'inconclusive',
            gates: [ctr('treatment', 'inconclusive', { ci_low: 0.047, ci_high: 0.053, reason: 'interval spans threshold' })],
          },
        ],
        'inconclusive',
      ),
    );
    const lines = md.split('\n');
    expect(lines[0]).toBe('### ⚠️ inconclusive — Gates: experiment 7');
    expect(md).toContain('Sample ratio: OK (p = 0.6500).');
    expect(md).toContain('| variant | users | gate | value | interval | threshold | verdict |');
    expect(md).toContain('| control (control) | 1,200 | min_click_through_rate | 0.0612 | [0.0551, 0.0673] | ≥ 0.05 | ✅ pass |');
    expect(md).toContain(
      '| treatment | 1,180 | min_click_through_rate | 0.0612 | [0.047, 0.053] | ≥ 0.05 | ⚠️ inconclusive (interval spans threshold) |',
    );
    expect(lines.filter((l) => l.startsWith('| ') && !l.startsWith('| variant'))).toHaveLength(2);
  });

  it('shows a failure, a point-rule value without interval and a sample ratio mismatch', () => {
    // A point-rule gate has no interval.
    const { ci_low: _low, ci_high: _high, ...withoutInterval } = ctr('b', 'fail');
    const md = gateSummaryMarkdown({
      ...report(
        [
          {
            name: 'b',
            is_control: false,
            users: 10,
            verdict: 'fail',
            gates: [{ ...withoutInterval, rule: 'point' }],
          },
        ],
        'fail',
      ),
      srm: { chi_square: 30.1, p_value: 4e-8, mismatch: true },
    });
    expect(md.split('\n')[0]).toBe('### ❌ fail — Gates: experiment 7');
    expect(md).toContain('| b | 10 | min_click_through_rate | 0.0612 | — | ≥ 0.05 | ❌ fail |');
    expect(md).toMatch(/❌ \*\*Sample ratio mismatch\*\* \(chi-square 30\.10, p = 4\.0e-8\)/);
  });

  it('makes names from the data inert: no HTML, no column break, no emphasis', () => {
    expect(escapeMarkdown('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeMarkdown('a|b *c* _d_ `e` [f](g)\nh')).toBe('a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) h');
    const md = gateSummaryMarkdown(
      report([{ name: 'x|<b>y</b>', is_control: false, users: 1, verdict: 'pass', gates: [ctr('x', 'pass')] }]),
    );
    expect(md).toContain('| x\\|&lt;b&gt;y&lt;/b&gt; | 1 |');
    // Every table row keeps exactly 7 cells (8 unescaped pipes).
    for (const line of md.split('\n').filter((l) => l.startsWith('| x'))) expect(line.replace(/\\\|/g, '').split('|')).toHaveLength(9);
  });

  it('stays under 1 MiB: rows that do not fit are replaced by a note naming how many', () => {
    const name = 'v'.repeat(400);
    const variants = Array.from({ length: 4000 }, (_, i) => ({
      name: `${name}${i}`,
      is_control: i === 0,
      users: 5,
      verdict: 'pass' as const,
      gates: [ctr(`${name}${i}`, 'pass')],
    }));
    const md = gateSummaryMarkdown(report(variants));
    expect(bytes(md)).toBeLessThanOrEqual(STEP_SUMMARY_MAX_BYTES);
    const shown = md.split('\n').filter((l) => l.startsWith(`| ${name}`)).length;
    expect(shown).toBeGreaterThan(1000);
    expect(shown).toBeLessThan(4000);
    expect(md).toContain(`_${4000 - shown} more rows left out: a step summary must stay under 1 MiB; the JUnit XML has every gate._`);
  });

  it('honours a smaller budget exactly and leaves a summary that fits alone untouched', () => {
    const variants = Array.from({ length: 50 }, (_, i) => ({
      name: `v${i}`,
      is_control: false,
      users: 1,
      verdict: 'pass' as const,
      gates: [ctr(`v${i}`, 'pass')],
    }));
    const full = gateSummaryMarkdown(report(variants));
    expect(full).not.toContain('left out');
    for (const budget of [1200, 2000, 3333]) {
      const cut = gateSummaryMarkdown(report(variants), budget);
      expect(bytes(cut)).toBeLessThanOrEqual(budget);
      expect(cut).toMatch(/_\d+ more rows left out/);
    }
  });
});
