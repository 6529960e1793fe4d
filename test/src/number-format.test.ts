import { describe, expect, it } from 'vitest';
import { groupThousands } from '../../src/number-format.js';
import { createRandom } from '../../src/random.js';

// The reference is ICU's own formatting (toLocaleString('en-US')), which groupThousands
// replaces on the CLI's fast paths (it costs ~10 ms of a process's start to load).
const reference = (value: number, digits: number): string => value.toLocaleString('en-US', { maximumFractionDigits: digits });

describe('groupThousands', () => {
  it('writes counts with thousands separators', () => {
    expect(groupThousands(0)).toBe('0');
    expect(groupThousands(999)).toBe('999');
    expect(groupThousands(1000)).toBe('1,000');
    expect(groupThousands(1234567)).toBe('1,234,567');
    expect(groupThousands(-1234567)).toBe('-1,234,567');
    expect(groupThousands(1536.75, 1)).toBe('1,536.8');
  });

  it('rounds the shortest decimal form half away from zero, as ICU does (not as toFixed)', () => {
    expect(groupThousands(1.005, 2)).toBe('1.01');
    expect(groupThousands(1.45, 1)).toBe('1.5');
    expect(groupThousands(2.5)).toBe('3');
    expect(groupThousands(-2.5)).toBe('-3');
    expect(groupThousands(999.96, 1)).toBe('1,000');
    expect(groupThousands(-0.001)).toBe('-0');
  });

  it('equals toLocaleString("en-US") on 100,000 seeded values at 0 to 6 fraction digits', () => {
    const random = createRandom(2026);
    const mismatches: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const scale = 10 ** Math.floor(random() * 18);
      const value =
        i % 2 === 0 ? Math.floor(random() * scale) / 10 ** Math.floor(random() * 5) : (random() - 0.3) * 10 ** (random() * 22 - 4);
      const digits = [0, 1, 2, 3, 6][i % 5] ?? 0;
      if (groupThousands(value, digits) !== reference(value, digits)) mismatches.push(`${value} (${digits})`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('leaves what it does not write to toLocaleString: infinities, NaN, huge values', () => {
    for (const value of [Infinity, -Infinity, NaN, 1e21, 1.5e300]) expect(groupThousands(value)).toBe(reference(value, 0));
  });
});
