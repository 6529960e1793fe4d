/**
 * The kind of experiment: `ab` splits users between variants and compares them; `interleaving`
 * serves every enrolled user one list merged from its two variants' rankers (team draft) and
 * compares the rankers within each user's list. Recorded at creation (migration 0023).
 */
import { LiteralUnion } from '../../schemas/common.schema.js';

export const EXPERIMENT_TYPES = ['ab', 'interleaving'] as const;
export type ExperimentType = (typeof EXPERIMENT_TYPES)[number];
export const DEFAULT_EXPERIMENT_TYPE: ExperimentType = 'ab';

const TYPE_DESCRIPTION =
  'ab: users split between variants, each served its own ranking; interleaving: exactly two variants, every enrolled user served one list merged from both rankers (team draft), analysed by preference share';

/** ab | interleaving, on the wire. */
export const ExperimentTypeSchema = LiteralUnion(EXPERIMENT_TYPES, { description: TYPE_DESCRIPTION });

/** The creation body's `type`: optional, `ab` when left out. */
export const ExperimentTypeInputSchema = LiteralUnion(EXPERIMENT_TYPES, {
  default: DEFAULT_EXPERIMENT_TYPE,
  description: TYPE_DESCRIPTION,
});

/** What an experiment records beyond the response's fields: its type. */
export interface RecordedExperimentType {
  type: ExperimentType;
}

/** True for `ab` and `interleaving`. */
export function isExperimentType(value: unknown): value is ExperimentType {
  return typeof value === 'string' && (EXPERIMENT_TYPES as readonly string[]).includes(value);
}

/** The type stored in an experiment row (a row from before migration 0023, or an unknown value: `ab`). */
export function experimentTypeOf(row: object): ExperimentType {
  const type = (row as { type?: unknown }).type;
  return isExperimentType(type) ? type : DEFAULT_EXPERIMENT_TYPE;
}

/** One creation-rule violation: the field and a message. */
type Check = [field: string, message: string | undefined];

/**
 * The rules an interleaving experiment adds: a known type, and exactly two variants (two
 * rankers to interleave; their allocations still split enrolment, the lists do not depend on it).
 */
export function experimentTypeChecks(input: { type?: unknown; variants: readonly unknown[] }): Check[] {
  if (input.type === undefined) return [];
  if (!isExperimentType(input.type))
    return [['type', `experiment type must be ${EXPERIMENT_TYPES.join(' or ')} (got ${JSON.stringify(input.type)})`]];
  if (input.type !== 'interleaving') return [];
  const count = input.variants.length;
  return [
    [
      'variants',
      count === 2 ? undefined : `an interleaving experiment compares exactly two rankers: it needs exactly two variants (got ${count})`,
    ],
  ];
}
