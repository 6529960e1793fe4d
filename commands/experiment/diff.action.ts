/** The work behind `experiment diff`. */
import { ValidationError } from '../../src/errors.js';
import { proposedAllocations } from '../../src/experiments/allocation-diff.js';
import { AllocationDiffSchema, type AllocationDiffResult } from '../../src/experiments/allocation-diff.schema.js';
import { parseAllocations, type FlagAllocation } from '../support/allocations.js';
import { ExperimentSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { usageError } from '../support/cli-error.js';
import { formatCount, printJson, printLine, renderTable } from '../support/output.js';
import type { ServerFlags } from '../support/server-options.js';

export interface DiffOptions extends ServerFlags {
  allocations: string;
  json?: boolean;
}

/**
 * Parses --allocations (exit 2 before any request when bad), checks them against the
 * experiment's variants with the server's rule (exit 2 otherwise), POSTs them to the
 * read-only preview endpoint and prints the diff.
 */
export async function runDiff(id: number, options: DiffOptions): Promise<void> {
  const variants = parseAllocations(options.allocations);
  const client = new ApiClient(options);
  const experiment = await client.get(ApiClient.experimentsPath(id), ExperimentSchema);
  try {
    proposedAllocations(experiment.variants, variants);
  } catch (error) {
    if (error instanceof ValidationError) throw usageError(`--allocations: ${error.message}`);
    throw error;
  }
  const diff = await client.post(ApiClient.experimentsPath(id, 'allocation-diff'), AllocationDiffSchema, { variants });
  if (options.json) printJson(diff);
  else printLine(renderDiff(id, variants, diff));
}

/** The diff as two tables: bucket ranges changing variant, then assigned users moving per (from → to). */
export function renderDiff(id: number, variants: readonly FlagAllocation[], diff: AllocationDiffResult): string {
  const proposal = variants.map((v) => `${v.name}=${v.traffic_allocation}`).join(',');
  const lines = [`Experiment ${id}, proposed allocations ${proposal}`];
  if (diff.buckets.length === 0) lines.push('No bucket changes variant.');
  else {
    lines.push(`Buckets changing variant: ${diff.buckets_moving} of 100`);
    lines.push(
      renderTable(
        ['buckets', 'from', 'to'],
        diff.buckets.map((b) => [b.end - b.start === 1 ? String(b.start) : `${b.start}-${b.end - 1}`, b.from, b.to]),
      ),
    );
  }
  lines.push(`Assigned users moving: ${formatCount(diff.users_moving)} of ${formatCount(diff.users_assigned)}`);
  if (diff.moves.length > 0)
    lines.push(
      renderTable(
        ['from', 'to', 'users'],
        diff.moves.map((m) => [m.from, m.to, formatCount(m.users)]),
      ),
    );
  if (diff.users_moving > 0) lines.push('The server refuses this change unless forced: these users would keep their recorded variant.');
  return lines.join('\n');
}
