/**
 * The writers' memory of users' newest interactions (server/ranking-state/recent-interactions.ts):
 * what it answers from, and what it refuses to answer or to be filled with. The pairing through
 * a real database is checked in test/server/interactions/co-engagement-pairing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RecentInteractions } from '../../../server/ranking-state/recent-interactions.js';

const memory = (rowsPerUser = 6) => new RecentInteractions({ rowsPerUser, maxBytes: 1 << 20, ttlMs: 60_000 });
const row = (postId: string, atMs: number, id = `i${atMs}`) => ({ postId, atMs, id });

describe('RecentInteractions', () => {
  it('answers from a complete user, and refuses a partial one that cannot fill the window', () => {
    const m = memory();
    m.load('u', [row('p3', 30), row('p2', 20), row('p1', 10)]);
    expect(m.partnersBefore('u', 'p9', 40, 'i40', 2)).toEqual(['p3', 'p2']);
    expect(m.partnersBefore('u', 'p9', 25, 'i25', 5)).toEqual(['p2', 'p1']);
    m.load('v', [row('p6', 60), row('p5', 50), row('p4', 40), row('p4', 39, 'x'), row('p3', 30), row('p2', 20)]);
    expect(m.partnersBefore('v', 'p9', 70, 'i70', 3)).toEqual(['p6', 'p5', 'p4']);
    expect(m.partnersBefore('v', 'p9', 45, 'i45', 3)).toEqual(['p4', 'p3', 'p2']);
    expect(m.partnersBefore('v', 'p9', 45, 'i45', 4)).toBeUndefined();
  });

  it('keeps a suffix: a row older than a partial suffix is not added, the oldest go past the bound', () => {
    const m = memory(3);
    m.load('u', [row('p3', 30), row('p2', 20), row('p1', 10)]);
    m.added('u', row('p0', 5));
    m.added('u', row('p4', 40));
    expect(m.partnersBefore('u', 'p9', 50, 'i50', 3)).toEqual(['p4', 'p3', 'p2']);
    expect(m.partnersBefore('u', 'p9', 50, 'i50', 4)).toBeUndefined();
    m.removed('u', 'i40');
    expect(m.partnersBefore('u', 'p9', 50, 'i50', 3)).toBeUndefined();
  });

  it('is not filled from a read taken before a change, nor for users it holds', () => {
    const m = memory();
    m.load('held', [row('p1', 10)]);
    const stale = m.mark;
    m.postsRemoved(['p2']);
    m.fill([{ userId: 'v', postId: 'p2', atMs: 20, id: 'i20' }], true, stale);
    expect(m.holds('v')).toBe(false);
    m.fill(
      [
        { userId: 'held', postId: 'p7', atMs: 5, id: 'i5' },
        { userId: 'v', postId: 'p3', atMs: 30, id: 'i30' },
      ],
      true,
      m.mark,
    );
    expect(m.partnersBefore('held', 'p9', 50, 'i50', 3)).toEqual(['p1']);
    expect(m.partnersBefore('v', 'p9', 50, 'i50', 3)).toEqual(['p3']);
  });

  it('forgets deleted posts and erased users', () => {
    const m = memory();
    m.load('u', [row('p3', 30), row('p2', 20)]);
    m.postsRemoved(['p3']);
    expect(m.partnersBefore('u', 'p9', 50, 'i50', 3)).toEqual(['p2']);
    m.forget('u');
    expect(m.partnersBefore('u', 'p9', 50, 'i50', 3)).toBeUndefined();
  });
});
