import { describe, expect, it } from 'vitest';
import { SPARK_GLYPHS, sparkline } from '../../../../src/experiments/report/sparkline.js';

describe('sparkline', () => {
  it('maps the lowest value to ▁, the highest to █ and the rest linearly between', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([10, 20])).toBe('▁█');
    // 0.5 of the range rounds to level 4 (of 0..7): ▅
    expect(sparkline([0, 5, 10])).toBe('▁▅█');
  });

  it('shows a flat series as a row of middle bars, and gaps as spaces', () => {
    expect(sparkline([3, 3, 3])).toBe('▄▄▄');
    expect(sparkline([1, null, 3, Number.NaN])).toBe('▁ █ ');
    expect(sparkline([null, null])).toBe('  ');
    expect(sparkline([])).toBe('');
  });

  it('keeps the last `width` values, scaled among themselves', () => {
    expect(sparkline([100, 0, 1], 2)).toBe('▁█');
  });

  it('uses only the eight block glyphs', () => {
    const line = sparkline(Array.from({ length: 50 }, (_, i) => Math.sin(i / 3)));
    expect([...line].every((g) => (SPARK_GLYPHS as readonly string[]).includes(g))).toBe(true);
    expect([...line]).toHaveLength(50);
  });
});
