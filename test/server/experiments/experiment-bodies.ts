/** Experiment creation bodies for the server tests. */
import type { ExperimentCreate } from '../../../src/experiments/experiment.schema.js';

export const AUTHOR_ONLY = { author_preference: 1, content_engagement: 0, recency: 0, semantic_similarity: 0 };
export const RECENCY_ONLY = { author_preference: 0, content_engagement: 0, recency: 1, semantic_similarity: 0 };
export const BALANCED = { author_preference: 0.25, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.25 };

/** A valid two-variant experiment (control 50 / treatment 50) unless overridden. */
export function experimentBody(overrides: Partial<ExperimentCreate> = {}): ExperimentCreate {
  return {
    name: 'Recency boost',
    description: 'Does favouring recent posts raise CTR?',
    traffic_percentage: 100,
    minimum_sample_size: 10,
    confidence_level: 0.95,
    variants: [
      {
        name: 'control',
        description: 'current ranking',
        traffic_allocation: 50,
        algorithm_config: { weights: AUTHOR_ONLY },
        is_control: true,
      },
      {
        name: 'treatment',
        description: 'recency first',
        traffic_allocation: 50,
        algorithm_config: { weights: RECENCY_ONLY },
        is_control: false,
      },
    ],
    ...overrides,
  };
}

/** Three variants 40/30/30 (for field paths like variants[2].traffic_allocation). */
export function threeVariantBody(): ExperimentCreate {
  const base = experimentBody();
  return {
    ...base,
    variants: [
      { ...(base.variants[0] as ExperimentCreate['variants'][number]), traffic_allocation: 40 },
      { ...(base.variants[1] as ExperimentCreate['variants'][number]), traffic_allocation: 30 },
      { name: 'balanced', traffic_allocation: 30, algorithm_config: { weights: BALANCED }, is_control: false },
    ],
  };
}
