/** The per-instance quota of new posts (server/timelines/instance-quota.ts): a token bucket refilled over the hour. */
import { describe, expect, it } from 'vitest';
import { InstanceQuota } from '../../../server/timelines/instance-quota.js';

describe('InstanceQuota', () => {
  it('allows an hour of new posts at once, then refills at the hourly rate, per instance', () => {
    const quota = new InstanceQuota(600);
    const t0 = 1_000_000;
    expect(quota.available('a.example', t0)).toBe(600);
    quota.spend('a.example', 600, t0);
    expect(quota.available('a.example', t0)).toBe(0);
    // Another instance's allowance is its own.
    expect(quota.available('b.example', t0)).toBe(600);
    // Six minutes later: a tenth of the hour back.
    expect(quota.available('a.example', t0 + 6 * 60_000)).toBe(60);
    // Never more than an hour's worth.
    expect(quota.available('a.example', t0 + 10 * 3_600_000)).toBe(600);
  });
});
