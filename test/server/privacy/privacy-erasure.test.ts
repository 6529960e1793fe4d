/**
 * Erasure reaches memory through the ranking state's erasure event (a real RankingState):
 * the user's version moves, so no profile loaded before the erasure is cached after it; and
 * the user is held at `none` while it runs, so write paths asking the policy store nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { InFlightRequests } from '../../../server/privacy/in-flight-requests.js';
import { PrivacyErasureService } from '../../../server/privacy/privacy-erasure.service.js';
import { createPrivacyPolicy, type PrivacyPolicyService } from '../../../server/privacy/privacy-policy.service.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let database: DatabaseHandle;
let opened: TestDatabase;
let policy: PrivacyPolicyService;
let state: RankingState;

beforeEach(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  policy = await createPrivacyPolicy(database.db, { defaultLevel: 'full' });
  state = await loadRankingState(async () => []);
});
afterEach(async () => {
  await opened.close();
});

describe('erasure and memory', () => {
  it('announces userErased to the ranking state and empties the token caches; the user is at none only while it runs', async () => {
    const inFlight = new InFlightRequests();
    const forgotten: string[] = [];
    const erasure = new PrivacyErasureService({
      db: database.db,
      policy,
      inFlight,
      ranking: state,
      tokenCaches: [{ forget: () => forgotten.push('tokens') }],
    });
    const before = state.userVersion('alice');
    const erasedFromState: string[] = [];
    state.onUserErased((userId) => erasedFromState.push(userId));
    // A request of alice in flight: the erasure waits for it, holding her at none meanwhile.
    const end = inFlight.begin('alice', false);
    const erasing = erasure.eraseUser('alice');
    await new Promise((resolve) => setImmediate(resolve));
    expect(policy.levelOf('alice')).toBe('none');
    expect(policy.levelOf('bob')).toBe('full');
    end();
    const report = await erasing;
    expect(report.rows_deleted).toBe(0);
    expect(state.userVersion('alice')).not.toBe(before);
    expect(erasedFromState).toEqual(['alice']);
    expect(forgotten.length).toBeGreaterThanOrEqual(1);
    expect(policy.levelOf('alice')).toBe('full');
  });
});
