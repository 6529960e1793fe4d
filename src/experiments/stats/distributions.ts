/**
 * Normal and chi-square distribution functions precise to double precision, so that
 * p-values agree with SciPy to better than 1e-12 even far in the tails.
 *
 * Why not simple-statistics for these: its `cumulativeStdNormalProbability` reads a
 * 2-decimal table (errors ~1e-3), its `erf` is a fixed-order approximation with ~1e-7
 * absolute error (useless for small p-values), its `probit` uses Winitzki's closed form
 * (probit(0.975) = 1.9572 instead of 1.959964), and it has no chi-square CDF (only a
 * table of critical values). Its Lanczos `gammaln` is accurate to ~1e-15 and is used.
 *
 * It is loaded on first use, not at import (issue 27): parsing the whole package was the
 * largest part of `recsvc gates check --file`'s start, and the usual check (two variants:
 * one degree of freedom) needs no gamma function at all (chiSquareSf's closed forms).
 */
import { createRequire } from 'node:module';
import type * as SimpleStatistics from 'simple-statistics';

let loadedGammaln: ((n: number) => number) | undefined;

/** simple-statistics' log-gamma, its package required the first time one is needed. */
function gammaln(n: number): number {
  loadedGammaln ??= (createRequire(import.meta.url)('simple-statistics') as typeof SimpleStatistics).gammaln;
  return loadedGammaln(n);
}

// W. J. Cody, "Rational Chebyshev approximations for the error function" (Math. Comp. 1969),
// in the form of Cody's ANORM / R's pnorm.c: three ranges of |z|, each a rational function.
const A = [2.2352520354606839287, 161.02823106855587881, 1067.6894854603709582, 18154.981253343561249, 0.065682337918207449113];
const B = [47.20258190468824187, 976.09855173777669322, 10260.932208618978205, 45507.789335026729956];
const C = [
  0.39894151208813466764, 8.8831497943883759412, 93.506656132177855979, 597.27027639480026226, 2494.5375852903726711, 6848.1904505362823326,
  11602.651437647350124, 9842.7148383839780218, 1.0765576773720192317e-8,
];
const D = [
  22.266688044328115691, 235.38790178262499861, 1519.377599407554805, 6485.558298266760755, 18615.571640885098091, 34900.952721145977266,
  38912.003286093271411, 19685.429676859990727,
];
const P = [
  0.21589853405795699, 0.1274011611602473639, 0.022235277870649807, 0.001421619193227893466, 2.9112874951168792e-5, 0.02307344176494017303,
];
const Q = [1.28426009614491121, 0.468238212480865118, 0.0659881378689285515, 0.00378239633202758244, 7.29751555083966205e-5];
const ONE_OVER_SQRT_2PI = 0.398942280401432677939946059934;
const SQRT_32 = 5.656854249492380195206754896838;

const at = (coefficients: readonly number[], i: number): number => coefficients[i] as number;

/** exp(-y²/2)·factor, with y² split at a multiple of 1/16 so the exponent keeps full precision. */
function gaussianTail(y: number, factor: number): number {
  const ysq = Math.trunc(y * 16) / 16;
  const del = (y - ysq) * (y + ysq);
  return Math.exp(-ysq * ysq * 0.5) * Math.exp(-del * 0.5) * factor;
}

/** Upper tail P(Z > y) of the standard normal for y > 0.67448975 (Cody's 2nd and 3rd ranges). */
function upperTail(y: number): number {
  if (y <= SQRT_32) {
    let num = at(C, 8) * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + at(C, i)) * y;
      den = (den + at(D, i)) * y;
    }
    return gaussianTail(y, (num + at(C, 7)) / (den + at(D, 7)));
  }
  if (y >= 37.5193) return 0;
  const r = 1 / (y * y);
  let num = at(P, 5) * r;
  let den = r;
  for (let i = 0; i < 4; i++) {
    num = (num + at(P, i)) * r;
    den = (den + at(Q, i)) * r;
  }
  const factor = (ONE_OVER_SQRT_2PI - (r * (num + at(P, 4))) / (den + at(Q, 4))) / y;
  return gaussianTail(y, factor);
}

/** Standard normal survival function Q(z) = P(Z > z) = erfc(z/√2)/2, by Cody's rational approximations. */
export function normalSf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const y = Math.abs(z);
  if (y <= 0.67448975) {
    // Central range: Φ(z) = 1/2 + z·R(z²) with R rational.
    const zsq = y > Number.EPSILON / 2 ? z * z : 0;
    let num = at(A, 4) * zsq;
    let den = zsq;
    for (let i = 0; i < 3; i++) {
      num = (num + at(A, i)) * zsq;
      den = (den + at(B, i)) * zsq;
    }
    return 0.5 - (z * (num + at(A, 3))) / (den + at(B, 3));
  }
  const tail = upperTail(y);
  return z > 0 ? tail : 1 - tail;
}

/** Standard normal CDF Φ(z) = Q(−z). */
export function normalCdf(z: number): number {
  return normalSf(-z);
}

/** Two-sided p-value of a z statistic: p = 2·Q(|z|). */
export function twoSidedPValue(z: number): number {
  return Math.min(1, 2 * normalSf(Math.abs(z)));
}

// M. J. Wichura, "Algorithm AS 241: The percentage points of the normal distribution"
// (Applied Statistics 37, 1988): PPND16, relative accuracy about 1e-16.
const AS241_A = [
  3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
  33430.575583588128105, 2509.0809287301226727,
];
const AS241_B = [
  1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
  5226.495278852854561,
];
const AS241_C = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258,
  0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4,
];
const AS241_D = [
  1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459, 0.0151986665636164571966,
  5.475938084995344946e-4, 1.05075007164441684324e-9,
];
const AS241_E = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123, 0.026532189526576123093,
  0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7,
];
const AS241_F = [
  1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525, 7.868691311456132591e-4, 1.8463183175100546818e-5,
  1.4215117583164458887e-7, 2.04426310338993978564e-15,
];

/** Polynomial Σ c[i]·x^i by Horner's rule. */
function polynomial(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (let i = coefficients.length - 1; i >= 0; i--) value = value * x + at(coefficients, i);
  return value;
}

/** Standard normal quantile Φ⁻¹(p) (Wichura's AS 241): z with P(Z ≤ z) = p; ±Infinity at 0 and 1. */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(AS241_A, r)) / polynomial(AS241_B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value = polynomial(AS241_C, r) / polynomial(AS241_D, r);
  } else {
    r -= 5;
    value = polynomial(AS241_E, r) / polynomial(AS241_F, r);
  }
  return q < 0 ? -value : value;
}

const GAMMA_EPS = 1e-16;
const GAMMA_TINY = 1e-300;
const GAMMA_MAX_ITERATIONS = 10_000;

/** exp(−x + a·ln x − ln Γ(a)): the common factor of both expansions of the incomplete gamma. */
function gammaPrefactor(a: number, x: number): number {
  return Math.exp(-x + a * Math.log(x) - gammaln(a));
}

/** P(a, x) by its series: e^−x x^a / Γ(a) · Σₙ xⁿ / (a(a+1)…(a+n)); converges fast for x < a + 1. */
function lowerGammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < GAMMA_MAX_ITERATIONS; n++) {
    term *= x / (a + n);
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * GAMMA_EPS) break;
  }
  return sum * gammaPrefactor(a, x);
}

/** Q(a, x) by Legendre's continued fraction, evaluated with the modified Lentz method; for x ≥ a + 1. */
function upperGammaFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / GAMMA_TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < GAMMA_MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < GAMMA_TINY) d = GAMMA_TINY;
    c = b + an / c;
    if (Math.abs(c) < GAMMA_TINY) c = GAMMA_TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < GAMMA_EPS) break;
  }
  return h * gammaPrefactor(a, x);
}

/** Regularized upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a) (series below a+1, continued fraction above). */
export function regularizedGammaQ(a: number, x: number): number {
  if (Number.isNaN(a) || Number.isNaN(x) || a <= 0 || x < 0) return Number.NaN;
  if (x === 0) return 1;
  if (x === Number.POSITIVE_INFINITY) return 0;
  return x < a + 1 ? 1 - lowerGammaSeries(a, x) : upperGammaFraction(a, x);
}

/**
 * Chi-square survival function P(X > x) for `df` degrees of freedom: Q(df/2, x/2). One and
 * two degrees of freedom have closed forms, exact in double precision: P(|Z| > √x) =
 * 2·normalSf(√x) and e^(−x/2).
 */
export function chiSquareSf(x: number, df: number): number {
  if (x <= 0) return Number.isNaN(x) ? Number.NaN : 1;
  if (df === 1) return 2 * normalSf(Math.sqrt(x));
  if (df === 2) return Math.exp(-x / 2);
  return regularizedGammaQ(df / 2, x / 2);
}
