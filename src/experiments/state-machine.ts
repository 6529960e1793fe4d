/**
 * The experiment life cycle: DRAFT -> ACTIVE (start) <-> PAUSED -> COMPLETED (stop).
 */
import { ConflictError } from '../errors.js';

export const EXPERIMENT_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'COMPLETED'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const EXPERIMENT_ACTIONS = ['start', 'pause', 'stop'] as const;
export type ExperimentAction = (typeof EXPERIMENT_ACTIONS)[number];

const TRANSITIONS: Record<ExperimentAction, Partial<Record<ExperimentStatus, ExperimentStatus>>> = {
  start: { DRAFT: 'ACTIVE', PAUSED: 'ACTIVE' },
  pause: { ACTIVE: 'PAUSED' },
  stop: { ACTIVE: 'COMPLETED', PAUSED: 'COMPLETED' },
};

/** The state `action` leads to from `current`, or undefined when the move is not allowed. */
export function findNextStatus(current: ExperimentStatus, action: ExperimentAction): ExperimentStatus | undefined {
  return TRANSITIONS[action][current];
}

/** The state `action` leads to from `current`; throws ConflictError naming `current` when not allowed. */
export function nextStatus(current: ExperimentStatus, action: ExperimentAction): ExperimentStatus {
  const next = findNextStatus(current, action);
  if (next === undefined) {
    throw new ConflictError(`Cannot ${action} an experiment in state ${current}`);
  }
  return next;
}

/** The actions allowed from `current` (for help text and the CLI's prompts). */
export function allowedActions(current: ExperimentStatus): ExperimentAction[] {
  return EXPERIMENT_ACTIONS.filter((action) => findNextStatus(current, action) !== undefined);
}
