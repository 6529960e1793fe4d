import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../../src/experiments/stats/analysis.js';
import { METRIC_NAMES, type UserCounts } from '../../../../src/experiments/metrics.js';
import { escapeHtml } from '../../../../src/experiments/report/escape.js';
import { renderReportHtml } from '../../../../src/experiments/report/report-html.js';
import {
  buildReportModel,
  liftSeries,
  usersSeries,
  type ReportDesign,
  type ReportSnapshot,
} from '../../../../src/experiments/report/report-model.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';

/** A small LCG so the data never changes between runs. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const design: ReportDesign = {
  id: 4,
  name: 'ranking <script>alert(1)</script> & "co"',
  status: 'ACTIVE',
  confidence_level: 0.95,
  minimum_sample_size: 100,
  analysis_method: 'sequential',
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'b<i>', traffic_allocation: 50, is_control: false },
  ],
};

function user(next: () => number, ctr: number): UserCounts {
  const impressions = 1 + Math.floor(next() * 15);
  let clicks = 0;
  for (let i = 0; i < impressions; i++) if (next() < ctr) clicks++;
  const sessions = 1 + Math.floor(next() * 3);
  const feedback = Math.floor(next() * 3);
  const positive = Math.floor(next() * (feedback + 1));
  return {
    impressions,
    clicks,
    interactions: Math.floor(next() * 2),
    sessions,
    session_seconds: Math.floor(next() * 300),
    bounces: Math.floor(next() * (sessions + 1)),
    feedback_positive: positive,
    feedback_negative: feedback - positive,
  };
}

/** Snapshots of one growing experiment: day d holds the first 150·d users of each variant. */
function snapshots(days: number): ReportSnapshot[] {
  return Array.from({ length: days }, (_, d) => {
    const next = random(11);
    const accumulators = createAccumulators(design.variants.map((v) => v.name));
    for (let i = 0; i < 150 * (d + 1); i++) {
      accumulators.get('control')?.add(user(next, 0.08));
      accumulators.get('b<i>')?.add(user(next, 0.1));
    }
    const performance = design.variants.map((v) => ({
      variant: v.name,
      requests: 4000,
      errors: 4,
      latency_ms_p95: 90,
      cache_hits: 0,
      cache_lookups: 0,
      latency_histogram: { '2': 3000, '3': 1000 },
    }));
    return { at: Date.UTC(2026, 2, 1 + d), accumulators, performance };
  });
}

const data = snapshots(4);
const model = buildReportModel(design, [...data].reverse(), { source: 'test', generatedAt: Date.UTC(2026, 2, 5) });
const html = renderReportHtml(model);

describe('the report model', () => {
  it('analyses every snapshot, oldest first, with the experiment method: the series are the analysis intervals', () => {
    expect(model.analyses.map((a) => a.at)).toEqual(data.map((s) => s.at));
    expect(model.method).toBe('sequential');
    for (const metric of METRIC_NAMES) {
      const [series] = liftSeries(model, metric);
      expect(series?.name).toBe('b<i> − control');
      series?.points.forEach((point, i) => {
        const snapshot = data[i] as ReportSnapshot;
        const row = analyzeExperiment(design, snapshot.accumulators).comparisons.find((c) => c.metric === metric);
        expect(point).toEqual({ x: snapshot.at, y: row?.difference, low: row?.ci_low, high: row?.ci_high });
      });
    }
    expect(usersSeries(model).map((s) => s.points.map((p) => p.y))).toEqual([
      [150, 300, 450, 600],
      [150, 300, 450, 600],
    ]);
  });

  it('draws the sequential confidence sequence, wider than the fixed-horizon interval of the same data', () => {
    const fixed = buildReportModel(design, data, { source: 'test', generatedAt: 0, method: 'fixed' });
    const width = (m: typeof model) => {
      const p = liftSeries(m, 'click_through_rate')[0]?.points.at(-1);
      return (p?.high as number) - (p?.low as number);
    };
    expect(fixed.method).toBe('fixed');
    expect(width(model)).toBeGreaterThan(width(fixed) * 1.2);
  });

  it('judges the gates of the latest snapshot', () => {
    expect(model.gates.rule).toBe('bounds');
    expect(model.gates.variants.map((v) => v.users)).toEqual([600, 600]);
    expect(model.gates.variants[0]?.gates.map((g) => g.gate)).toEqual([
      'max_response_time_p95',
      'min_click_through_rate',
      'max_error_rate',
      'min_user_satisfaction',
    ]);
  });
});

describe('the HTML report', () => {
  it('is self-contained: a CSP that loads nothing, allows only its own style sheet by hash, and no scripts or links', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]?.replace(/&#39;/g, "'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import|style="/i);
    // The only URL is the SVG namespace, which is never fetched.
    expect(html.match(/https?:\/\/[^"'\s<]+/g)?.every((u) => u === 'http://www.w3.org/2000/svg')).toBe(true);
  });

  it('has a chart per metric (the primary first), the users chart and the gates table', () => {
    expect(html.match(/<svg /g)).toHaveLength(METRIC_NAMES.length + 1);
    const metrics = [...html.matchAll(/data-metric="([a-z_]+)"/g)].map((m) => m[1]);
    expect(metrics[0]).toBe('click_through_rate');
    expect(new Set(metrics)).toEqual(new Set(METRIC_NAMES));
    expect(html).toContain('<h2>Users per variant</h2>');
    expect(html).toMatch(/<h2>Gates: <span class="(pass|fail|inconclusive)">/);
    expect(html).toContain('4 snapshots, 2026-03-01 to 2026-03-04 UTC');
    expect(html).toContain('confidence sequences');
  });

  it("labels each metric with its role, states the primary metric's decision and each guardrail's harm test", () => {
    const roles = [...html.matchAll(/<h3>([a-z_]+) \((primary|guardrail|exploratory)\)<\/h3>/g)].map((m) => [m[1], m[2]]);
    expect(roles).toHaveLength(METRIC_NAMES.length);
    expect(Object.fromEntries(roles)).toEqual(model.latest.metric_roles);
    // The primary first, then the guardrails.
    expect(roles.slice(0, 1 + model.latest.guardrail_metrics.length).map((r) => r[1])).toEqual([
      'primary',
      ...model.latest.guardrail_metrics.map(() => 'guardrail'),
    ]);
    const decision = model.latest.decision.variants[0];
    expect(html).toContain(`Decision on click_through_rate: b&lt;i&gt; ${decision?.outcome.replace('_', ' ')}`);
    for (const g of model.latest.guardrails)
      expect(html).toContain(escapeHtml(`Guardrail, ${g.variant}: ${g.harm_detected ? 'harm detected' : 'no harm detected'} (one-sided`));
    expect(model.latest.guardrails.length).toBeGreaterThan(0);
  });

  it('escapes every name from the data', () => {
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<i>');
    expect(html).toContain('ranking &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;');
    expect(html).toContain('data-series="b&lt;i&gt; − control"');
  });

  it('says when there is a single snapshot and how to get the lift over time', () => {
    const single = renderReportHtml(buildReportModel(design, data.slice(0, 1), { source: 'x', generatedAt: 0 }));
    expect(single).toContain('One snapshot');
    expect(single).toContain('<path class="whisker"');
  });
});
