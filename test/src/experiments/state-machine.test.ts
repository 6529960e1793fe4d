import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../src/errors.js';
import {
  allowedActions,
  EXPERIMENT_ACTIONS,
  EXPERIMENT_STATUSES,
  findNextStatus,
  nextStatus,
} from '../../../src/experiments/state-machine.js';

describe('experiment state machine', () => {
  it('allows exactly the documented moves', () => {
    const table = Object.fromEntries(
      EXPERIMENT_STATUSES.map((status) => [
        status,
        Object.fromEntries(EXPERIMENT_ACTIONS.map((a) => [a, findNextStatus(status, a) ?? null])),
      ]),
    );
    expect(table).toEqual({
      DRAFT: { start: 'ACTIVE', pause: null, stop: null },
      ACTIVE: { start: null, pause: 'PAUSED', stop: 'COMPLETED' },
      PAUSED: { start: 'ACTIVE', pause: null, stop: 'COMPLETED' },
      COMPLETED: { start: null, pause: null, stop: null },
    });
    expect(allowedActions('PAUSED')).toEqual(['start', 'stop']);
  });

  it('refuses other moves with a 409 naming the current state', () => {
    expect(() => nextStatus('DRAFT', 'pause')).toThrow(ConflictError);
    expect(() => nextStatus('DRAFT', 'pause')).toThrow('Cannot pause an experiment in state DRAFT');
    expect(() => nextStatus('COMPLETED', 'start')).toThrow('Cannot start an experiment in state COMPLETED');
    expect(nextStatus('ACTIVE', 'stop')).toBe('COMPLETED');
  });
});
