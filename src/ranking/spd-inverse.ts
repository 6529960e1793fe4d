/**
 * The inverse of a symmetric positive definite matrix, shared by the periodic item–item model
 * (./item-model.ts) and the EASE baseline of `recsvc eval` (src/evaluation/baselines.ts): one
 * implementation, so the baseline measures what the service serves.
 */

/**
 * The inverse of a symmetric positive definite n×n matrix (row-major), by Cholesky: A = LLᵀ,
 * A⁻¹ = L⁻ᵀL⁻¹. About n³/2 multiply-adds; holds three n×n float64 arrays beside the input
 * (L, L⁻¹ and the result: 24·n² bytes).
 */
export function invertSpd(a: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * n + j] as number;
      for (let k = 0; k < j; k++) sum -= (l[i * n + k] as number) * (l[j * n + k] as number);
      if (i === j) {
        if (!(sum > 0)) throw new Error('matrix is not positive definite');
        l[i * n + i] = Math.sqrt(sum);
      } else l[i * n + j] = sum / (l[j * n + j] as number);
    }
  }
  // M = L⁻¹ (lower triangular), row by row.
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const lii = l[i * n + i] as number;
    m[i * n + i] = 1 / lii;
    for (let j = 0; j < i; j++) {
      let sum = 0;
      for (let k = j; k < i; k++) sum += (l[i * n + k] as number) * (m[k * n + j] as number);
      m[i * n + j] = -sum / lii;
    }
  }
  // A⁻¹ = MᵀM: (MᵀM)[i][j] = Σ_k M[k][i]·M[k][j], accumulated row by row of M.
  const inv = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    const row = k * n;
    for (let i = 0; i <= k; i++) {
      const mki = m[row + i] as number;
      if (mki === 0) continue;
      const out = i * n;
      for (let j = i; j <= k; j++) inv[out + j] = (inv[out + j] as number) + mki * (m[row + j] as number);
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) inv[i * n + j] = inv[j * n + i] as number;
  return inv;
}
