/**
 * Sparklines for the terminal (`experiment status --watch`): a series of numbers as the eight
 * block glyphs ▁▂▃▄▅▆▇█, the lowest value the shortest bar. Pure.
 */

export const SPARK_GLYPHS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * One glyph per value, the last `width` values: level = round((v − min)/(max − min) · 7) over the
 * shown finite values; a flat series is all ▄ (nothing to compare), a missing value (null, NaN) a space.
 */
export function sparkline(values: readonly (number | null)[], width = values.length): string {
  const shown = values.slice(Math.max(0, values.length - width));
  const finite = shown.filter((v): v is number => v !== null && Number.isFinite(v));
  if (finite.length === 0) return ' '.repeat(shown.length);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const top = SPARK_GLYPHS.length - 1;
  return shown
    .map((v) => {
      if (v === null || !Number.isFinite(v)) return ' ';
      if (max === min) return SPARK_GLYPHS[3];
      return SPARK_GLYPHS[Math.round(((v - min) / (max - min)) * top)];
    })
    .join('');
}
