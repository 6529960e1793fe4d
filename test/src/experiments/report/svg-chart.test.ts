import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../src/experiments/report/escape.js';
import { lineChart, niceTicks, seriesColour } from '../../../../src/experiments/report/svg-chart.js';

const day = (d: number) => Date.UTC(2026, 2, d);
const formatX = (x: number) => new Date(x).toISOString().slice(0, 10);

function seriesGroups(svg: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const match of svg.matchAll(/<g class="series" data-series="([^"]*)">(.*?)<\/g>/g))
    groups.set(match[1] as string, match[2] as string);
  return groups;
}

describe('lineChart', () => {
  const svg = lineChart({
    title: 'ctr difference',
    yLabel: 'Δ ctr',
    formatX,
    zeroLine: true,
    series: [
      {
        name: 'b − a',
        points: [
          { x: day(1), y: 0.01, low: -0.02, high: 0.04 },
          { x: day(2), y: 0.015, low: -0.005, high: 0.035 },
          { x: day(3), y: 0.02, low: 0.005, high: 0.035 },
        ],
      },
      {
        name: 'c − a',
        points: [
          { x: day(1), y: -0.01, low: -0.03, high: 0.01 },
          { x: day(2), y: null },
          { x: day(3), y: 0 },
        ],
      },
    ],
  });

  it('draws one group per series with its band, line and a circle per known point', () => {
    const groups = seriesGroups(svg);
    expect([...groups.keys()]).toEqual(['b − a', 'c − a']);
    const first = groups.get('b − a') as string;
    expect(first.match(/<path class="band"/g)).toHaveLength(1);
    expect(first.match(/<path class="line"/g)).toHaveLength(1);
    expect(first.match(/<circle class="point"/g)).toHaveLength(3);
    expect(first).toContain(`fill="${seriesColour(0)}"`);
    // The gap at day 2 breaks the second series: two single points, no line, no band.
    const second = groups.get('c − a') as string;
    expect(second).not.toContain('class="line"');
    expect(second).not.toContain('class="band"');
    expect(second.match(/<circle class="point"/g)).toHaveLength(2);
  });

  it('places points by value: a larger y is higher on the page (smaller cy), later x further right', () => {
    const circles = [...(seriesGroups(svg).get('b − a') as string).matchAll(/cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(circles[0]![0]).toBeLessThan(circles[1]![0]!);
    expect(circles[1]![0]).toBeLessThan(circles[2]![0]!);
    expect(circles[0]![1]).toBeGreaterThan(circles[2]![1]!);
  });

  it('has the zero line, the title, tooltips with the interval and the x labels', () => {
    expect(svg).toContain('<line class="zero"');
    expect(svg).toContain('<title>ctr difference</title>');
    expect(svg).toContain('<title>b − a 2026-03-03: 0.02 [0.005, 0.035]</title>');
    for (const d of ['2026-03-01', '2026-03-02', '2026-03-03']) expect(svg).toContain(`>${d}</text>`);
    expect(svg).not.toMatch(/style=|<script|href=/);
  });

  it('draws a lone point with its interval as a whisker', () => {
    const one = lineChart({ title: 't', yLabel: 'y', formatX, series: [{ name: 's', points: [{ x: day(1), y: 2, low: 1, high: 3 }] }] });
    expect(one).toContain('<path class="whisker"');
    expect(one.match(/<circle class="point"/g)).toHaveLength(1);
  });

  it('says "no data yet" without points', () => {
    expect(lineChart({ title: 't', yLabel: 'y', formatX, series: [{ name: 's', points: [] }] })).toContain('no data yet');
  });

  it('escapes names, titles and labels', () => {
    const evil = '<script>alert("x")</script>';
    const out = lineChart({ title: evil, yLabel: evil, formatX: () => evil, series: [{ name: evil, points: [{ x: 1, y: 1 }] }] });
    expect(out).not.toContain('<script>');
    expect(out).toContain(escapeHtml(evil));
    expect(out).toContain(`data-series="${escapeHtml(evil)}"`);
  });
});

describe('niceTicks', () => {
  it('gives round steps covering the range', () => {
    expect(niceTicks(0, 10)).toEqual([0, 5, 10]);
    expect(niceTicks(0, 800, 6)).toEqual([0, 200, 400, 600, 800]);
    expect(niceTicks(-0.021, 0.043)).toEqual([-0.02, 0, 0.02, 0.04]);
    expect(niceTicks(5, 5)).toEqual([5]);
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
