/** Human output of `recsvc bucket`. */
import type { BucketExplanation, VariantRange } from '../../src/experiments/assignment.js';
import type { FlagAllocation } from './allocations.js';
import { colours } from './output.js';

/** Where the allocations came from and the traffic percentage. */
export interface BucketDesign {
  variants: FlagAllocation[];
  traffic: number;
  source: string;
}

/** `<user>\t<bucket>\t<variant>`: tab-separated for scripts; the variant column only when known. */
export function bucketLine(userId: string, bucket: number, variant: string | null | undefined): string {
  if (variant === undefined) return `${userId}\t${bucket}`;
  return `${userId}\t${bucket}\t${variant ?? '(not enrolled)'}`;
}

/** The integer buckets a range owns: [ceil(start), ceil(end) − 1]; the last range runs to 99. */
export function ownedBuckets(range: VariantRange, last: boolean): string {
  const first = Math.ceil(range.start);
  const final = last ? 99 : Math.ceil(range.end) - 1;
  if (final < first) return 'no whole bucket';
  return first === final ? `bucket ${first}` : `buckets ${first}-${final}`;
}

/** The multi-line `--explain` block for one user. */
export function explanationLines(
  steps: BucketExplanation,
  variant: string | null | undefined,
  ranges: VariantRange<FlagAllocation>[] | undefined,
  design: BucketDesign | undefined,
): string[] {
  const c = colours();
  const lines = [
    `hash input    ${JSON.stringify(steps.input)}   (<user_id>_<experiment_id>)`,
    `md5           ${steps.md5}`,
    `first 8 hex   ${c.bold(steps.hex8)}`,
    `as integer    ${steps.integer}`,
    `bucket        ${steps.integer} mod 100 = ${c.bold(String(steps.bucket))}`,
  ];
  if (ranges === undefined || design === undefined) {
    lines.push('variant       (give --allocations, or --server to read the experiment, to see the variant)');
    return lines;
  }
  const owner = ranges.find((range) => range.variant.name === variant);
  if (variant === null) {
    lines.push(`variant       not enrolled: traffic bucket of "${steps.input}_traffic" is not below traffic_percentage ${design.traffic}`);
  } else if (owner !== undefined) {
    lines.push(`variant       ${c.bold(owner.variant.name)} (owns ${ownedBuckets(owner, owner === ranges.at(-1))})`);
  }
  const all = ranges.map((range, i) => `${range.variant.name} ${ownedBuckets(range, i === ranges.length - 1)}`).join(', ');
  lines.push(`ranges        ${all}   (from ${design.source})`, '');
  return lines;
}
