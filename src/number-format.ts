/**
 * Numbers with thousands separators as `toLocaleString('en-US', { maximumFractionDigits })`
 * writes them, without it: the first locale-aware call loads ICU's number formatting, about
 * 10 ms of a CLI process's start (issue 27: `recsvc gates check --file` in under twice a bare
 * `node -e 0`). Like ICU, it rounds the shortest decimal form of the value half away from zero
 * (1.005 → "1.01", where toFixed gives "1.00"). Finite values below 1e21 only; anything else is
 * left to toLocaleString.
 */
export function groupThousands(value: number, maxFractionDigits = 0): string {
  const abs = Math.abs(value);
  if (!Number.isFinite(value) || abs >= 1e21 || !Number.isInteger(maxFractionDigits) || maxFractionDigits < 0 || maxFractionDigits > 20) {
    return value.toLocaleString('en-US', { maximumFractionDigits: maxFractionDigits });
  }
  // Below 1e-7 the shortest form is exponential; every such value rounds to 0 at ≤ 6 digits.
  const shortest = abs < 1e-7 && maxFractionDigits <= 6 ? '0' : abs.toString();
  if (shortest.includes('e')) return value.toLocaleString('en-US', { maximumFractionDigits: maxFractionDigits });
  const [whole = '0', fraction = ''] = shortest.split('.');
  let digits = whole;
  let kept = fraction;
  if (fraction.length > maxFractionDigits) {
    kept = fraction.slice(0, maxFractionDigits);
    if (fraction.charCodeAt(maxFractionDigits) >= 53 /* '5' */) {
      const bumped = (BigInt(whole + kept) + 1n).toString().padStart(whole.length + kept.length, '0');
      digits = bumped.slice(0, bumped.length - kept.length);
      kept = bumped.slice(bumped.length - kept.length);
    }
  }
  kept = kept.replace(/0+$/, '');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${kept === '' ? '' : `.${kept}`}`;
}
