/** The rules that decide whether a client event can be true, at their exact edges. */
import { describe, expect, it } from 'vitest';
import {
  MAX_FUTURE_SKEW_MS,
  MAX_PAST_SKEW_MS,
  MAX_SESSION_MS,
  judgeEvents,
  sessionVerdict,
  timestampVerdict,
  type ClaimableImpression,
  type EventToJudge,
} from '../../../src/experiments/event-rules.js';

const NOW = 1_700_000_000_000;

describe('the skew window', () => {
  it('is 5 minutes ahead and 24 hours behind the receipt, both ends included', () => {
    expect([MAX_FUTURE_SKEW_MS, MAX_PAST_SKEW_MS]).toEqual([300_000, 86_400_000]);
    expect(timestampVerdict(NOW + MAX_FUTURE_SKEW_MS, NOW)).toBeUndefined();
    expect(timestampVerdict(NOW + MAX_FUTURE_SKEW_MS + 1, NOW)).toBe('timestamp_out_of_window');
    expect(timestampVerdict(NOW - MAX_PAST_SKEW_MS, NOW)).toBeUndefined();
    expect(timestampVerdict(NOW - MAX_PAST_SKEW_MS - 1, NOW)).toBe('timestamp_out_of_window');
  });
});

describe('sessions', () => {
  const empty = { startMs: null, endMs: null };
  it('last from 0 to 12 hours, both ends included, whichever event arrives second', () => {
    expect(MAX_SESSION_MS).toBe(43_200_000);
    expect(sessionVerdict('session_end', NOW, { startMs: NOW, endMs: null })).toBeUndefined();
    expect(sessionVerdict('session_end', NOW + MAX_SESSION_MS, { startMs: NOW, endMs: null })).toBeUndefined();
    expect(sessionVerdict('session_end', NOW + MAX_SESSION_MS + 1, { startMs: NOW, endMs: null })).toBe('session_too_long');
    expect(sessionVerdict('session_start', NOW - MAX_SESSION_MS - 1, { startMs: null, endMs: NOW })).toBe('session_too_long');
    expect(sessionVerdict('session_start', NOW + 1, { startMs: null, endMs: NOW })).toBe('session_ends_before_start');
    expect(sessionVerdict('session_start', NOW, empty)).toBeUndefined();
  });

  it('have one start and one end', () => {
    expect(sessionVerdict('session_start', NOW, { startMs: NOW, endMs: null })).toBe('duplicate_session_start');
    expect(sessionVerdict('session_end', NOW, { startMs: null, endMs: NOW })).toBe('duplicate_session_end');
  });
});

describe('judging a batch', () => {
  const click = (postId: string, userId = 'u'): EventToJudge => ({
    type: 'click',
    userId,
    postId,
    sessionId: undefined,
    occurredAtMs: NOW,
  });
  const impression = (id: number, postId: string, claimed = false): ClaimableImpression => ({
    id,
    userId: 'u',
    postId,
    clickClaimed: claimed,
    viewClaimed: false,
  });

  it('lets each click claim the newest unclaimed impression of that post and user, once', () => {
    const impressions = [impression(3, 'p'), impression(2, 'p', true), impression(1, 'p')];
    expect(judgeEvents([click('p'), click('p'), click('p'), click('p', 'other'), click('q')], NOW, impressions, [])).toEqual([
      { reason: null, impressionId: 3 },
      { reason: null, impressionId: 1 },
      { reason: 'duplicate_click', impressionId: null },
      { reason: 'no_impression', impressionId: null },
      { reason: 'no_impression', impressionId: null },
    ]);
  });

  it('checks the timestamp first and leaves refused events out of later judgements', () => {
    const late = { ...click('p'), occurredAtMs: NOW - MAX_PAST_SKEW_MS - 1 };
    expect(judgeEvents([late, click('p')], NOW, [impression(1, 'p')], [])).toEqual([
      { reason: 'timestamp_out_of_window', impressionId: null },
      { reason: null, impressionId: 1 },
    ]);
    const session = (type: 'session_start' | 'session_end', at: number): EventToJudge => ({
      type,
      userId: 'u',
      postId: undefined,
      sessionId: 's',
      occurredAtMs: at,
    });
    const stored = [{ userId: 'u', sessionId: 's', type: 'session_start' as const, occurredAtMs: NOW - 1000 }];
    expect(judgeEvents([session('session_end', NOW + 10), session('session_end', NOW)], NOW, [], stored).map((v) => v.reason)).toEqual([
      null,
      'duplicate_session_end',
    ]);
  });
});
