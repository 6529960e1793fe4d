/** `--allocations name=pct,...` for `bucket`, `experiment analyze` and `gates check` on a CSV. */
import { validateAllocation, validateAllocationSum, validateVariantName } from '../../src/experiments/design-rules.js';
import { usageError } from './cli-error.js';

/** One variant as the flag describes it, in the flag's order (the bucket ranges' order). */
export interface FlagAllocation {
  name: string;
  traffic_allocation: number;
}

/** Parses `a=40,b=20,c=40` with the server's rules (each > 0, sum 100, unique names); throws a usage error naming the flag. */
export function parseAllocations(text: string, flag = '--allocations'): FlagAllocation[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const result: FlagAllocation[] = [];
  for (const part of parts) {
    const match = /^([^=]+)=(.*)$/.exec(part);
    if (!match) throw usageError(`${flag}: expected name=percent pairs like control=50,treatment=50 (got "${part}")`);
    const name = (match[1] as string).trim();
    const raw = (match[2] as string).trim();
    const value = raw === '' ? Number.NaN : Number(raw);
    const issue = validateVariantName(name) ?? validateAllocation(value);
    if (issue !== undefined) throw usageError(`${flag}: ${name}: ${issue}`);
    if (result.some((entry) => entry.name === name)) throw usageError(`${flag}: variant "${name}" is listed twice`);
    result.push({ name, traffic_allocation: value });
  }
  if (result.length < 2) throw usageError(`${flag}: an experiment needs at least two variants (got ${result.length})`);
  const sumIssue = validateAllocationSum(result.map((entry) => entry.traffic_allocation));
  if (sumIssue !== undefined) throw usageError(`${flag}: ${sumIssue}`);
  return result;
}
