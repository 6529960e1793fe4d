import type { AlgorithmConfig, Weights } from './ranking.types.js';
import { DEFAULT_ALGORITHM_CONFIG } from './ranking.types.js';

/** The weights rescaled together; `collaborative` last, so that a config without it (0) sums to the very same numbers. */
const TRADITIONAL = ['author_preference', 'content_engagement', 'recency', 'collaborative'] as const;

/**
 * The weights a ranking really uses, always summing to 1 so that scores stay in [0, 1]:
 * - `use_semantic_scoring === false`: the semantic weight is 0 and the other three are
 *   rescaled to sum to 1;
 * - else, `semantic_weight` (clamped to [0, 1]) replaces `weights.semantic_similarity`
 *   and the other three are rescaled to fill `1 − semantic_weight`, keeping their ratios;
 * - otherwise the four weights are rescaled to sum to 1.
 * `collaborative` (absent: 0) is rescaled with the author, engagement and recency weights.
 * When those are all 0 but room is left for them the three spec weights share it equally;
 * weights that sum to 0 fall back to the defaults.
 */
export function effectiveWeights(config: AlgorithmConfig): Required<Weights> {
  const w = config.weights;
  const clamp = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
  const semantic =
    config.use_semantic_scoring === false
      ? 0
      : config.semantic_weight !== undefined
        ? clamp(config.semantic_weight)
        : clamp(w.semantic_similarity);
  const traditional = TRADITIONAL.map((k) => clamp(w[k] ?? 0));
  const traditionalSum = traditional.reduce((a, b) => a + b, 0);

  if (config.use_semantic_scoring !== false && config.semantic_weight === undefined) {
    const total = traditionalSum + semantic;
    if (total <= 0) return effectiveWeights(DEFAULT_ALGORITHM_CONFIG);
    return build(
      traditional.map((x) => x / total),
      semantic / total,
    );
  }
  const room = 1 - semantic;
  if (room <= 0) return build([0, 0, 0, 0], 1);
  const scaled = traditionalSum > 0 ? traditional.map((x) => (x / traditionalSum) * room) : [room / 3, room / 3, room / 3, 0];
  return build(scaled, semantic);
}

function build(traditional: readonly number[], semantic: number): Required<Weights> {
  return {
    author_preference: traditional[0] ?? 0,
    content_engagement: traditional[1] ?? 0,
    recency: traditional[2] ?? 0,
    semantic_similarity: semantic,
    collaborative: traditional[3] ?? 0,
  };
}
