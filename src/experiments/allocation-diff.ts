/**
 * What an allocation change would do, before it is made: which variant buckets (the spec's
 * 0..99 MD5 buckets) change owner, and how many already-assigned users sit in buckets the
 * proposed allocations give to another variant than the one recorded for them.
 *
 * A user's first assignment is recorded and never changes (decisions.md), so such users
 * keep their variant after the change while new users of the same bucket get the new
 * one: the variants' populations would no longer be comparable. That is why the API
 * refuses such a change unless forced. Variants may be added or removed between the two
 * allocations: a bucket whose variant is gone moves to whichever variant now owns it.
 */
import { ValidationError } from '../errors.js';
import { BUCKETS, variantForBucket, variantRanges, type AllocatedVariant } from './assignment.js';
import { validateAllocation, validateAllocationSum } from './validate-experiment.js';

/** Consecutive buckets [start, end) that change owner from `from` to `to`. */
export interface BucketMove {
  start: number;
  end: number;
  from: string;
  to: string;
}

/** Assigned users whose bucket the proposed allocations give to `to` instead of their recorded `from`. */
export interface UserMove {
  from: string;
  to: string;
  users: number;
}

/**
 * A user's recorded assignment, as the diff needs it: the variant and the bucket (of the
 * canonical user id, recorded at assignment — the stored id is a pseudonym and cannot be hashed again).
 */
export interface RecordedAssignment {
  variant: string;
  bucket: number;
}

export interface AllocationDiff {
  /** Bucket ranges that change variant, in bucket order; each range has one (from, to). */
  buckets: BucketMove[];
  /** How many buckets change variant in total. */
  buckets_moving: number;
  /** Moved users per (from, to), largest first, then by names. */
  moves: UserMove[];
  users_assigned: number;
  users_moving: number;
}

/** The owner of every bucket 0..99 under these allocations (the spec's rule, variant order kept). */
export function bucketOwners(variants: readonly AllocatedVariant[]): (string | undefined)[] {
  const ranges = variantRanges(variants);
  return Array.from({ length: BUCKETS }, (_, bucket) => variantForBucket(ranges, bucket)?.name);
}

/** Bucket ranges whose owner differs between the current and the proposed allocations, merged when adjacent with the same (from, to). */
export function bucketMoves(current: readonly AllocatedVariant[], proposed: readonly AllocatedVariant[]): BucketMove[] {
  const before = bucketOwners(current);
  const after = bucketOwners(proposed);
  const moves: BucketMove[] = [];
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    const from = before[bucket] ?? '';
    const to = after[bucket] ?? '';
    if (from === to) continue;
    const last = moves.at(-1);
    if (last !== undefined && last.end === bucket && last.from === from && last.to === to) last.end = bucket + 1;
    else moves.push({ start: bucket, end: bucket + 1, from, to });
  }
  return moves;
}

/**
 * Counts assigned users who would move: their recorded bucket (md5 of `<user>_<experiment>`)
 * belongs to another variant under the proposed allocations than the one recorded for them.
 * Linear in the experiment's assignments.
 */
export async function userMoves(
  proposed: readonly AllocatedVariant[],
  assignments: Iterable<RecordedAssignment> | AsyncIterable<RecordedAssignment>,
): Promise<{ moves: UserMove[]; users_assigned: number }> {
  const owners = bucketOwners(proposed);
  const counts = new Map<string, UserMove>();
  let assigned = 0;
  for await (const { variant, bucket } of assignments) {
    assigned++;
    const to = owners[bucket] ?? '';
    if (to === variant) continue;
    const key = JSON.stringify([variant, to]);
    const move = counts.get(key) ?? { from: variant, to, users: 0 };
    move.users++;
    counts.set(key, move);
  }
  const moves = [...counts.values()].sort((a, b) => b.users - a.users || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  return { moves, users_assigned: assigned };
}

/** The whole diff: bucket ranges changing owner, and assigned users moving per (from, to). */
export async function allocationDiff(
  current: readonly AllocatedVariant[],
  proposed: readonly AllocatedVariant[],
  assignments: Iterable<RecordedAssignment> | AsyncIterable<RecordedAssignment>,
): Promise<AllocationDiff> {
  const buckets = bucketMoves(current, proposed);
  const { moves, users_assigned } = await userMoves(proposed, assignments);
  return {
    buckets,
    buckets_moving: buckets.reduce((sum, range) => sum + range.end - range.start, 0),
    moves,
    users_assigned,
    users_moving: moves.reduce((sum, move) => sum + move.users, 0),
  };
}

/** "control → treatment: 12, treatment → control: 3" (for messages). */
export function describeUserMoves(moves: readonly UserMove[]): string {
  return moves.map((move) => `${move.from} → ${move.to}: ${move.users}`).join(', ');
}

/**
 * New allocations for an experiment's existing variants, in the experiment's variant order
 * (the bucket ranges' order never changes): every variant named exactly once, no unknown
 * name, each allocation > 0 and <= 100, summing to 100. 400 naming the field otherwise.
 */
export function proposedAllocations(current: readonly AllocatedVariant[], proposed: readonly AllocatedVariant[]): AllocatedVariant[] {
  const byName = new Map<string, number>();
  proposed.forEach((entry, index) => {
    if (!current.some((variant) => variant.name === entry.name))
      throw new ValidationError(
        `variant "${entry.name}" is not one of this experiment's variants (${current.map((v) => v.name).join(', ')})`,
        `variants[${index}].name`,
      );
    if (byName.has(entry.name)) throw new ValidationError(`variant "${entry.name}" is listed twice`, `variants[${index}].name`);
    const issue = validateAllocation(entry.traffic_allocation);
    if (issue !== undefined) throw new ValidationError(`${entry.name}: ${issue}`, `variants[${index}].traffic_allocation`);
    byName.set(entry.name, entry.traffic_allocation);
  });
  const missing = current.filter((variant) => !byName.has(variant.name)).map((variant) => variant.name);
  if (missing.length > 0) throw new ValidationError(`every variant needs an allocation: missing ${missing.join(', ')}`, 'variants');
  const ordered = current.map((variant) => ({ name: variant.name, traffic_allocation: byName.get(variant.name) as number }));
  const sumIssue = validateAllocationSum(ordered.map((variant) => variant.traffic_allocation));
  if (sumIssue !== undefined) throw new ValidationError(sumIssue, 'variants');
  return ordered;
}
