/** The work behind `recsvc bucket`: the pure assignment rule, fed one user or a stream of them. */
import { EXPERIMENT_DEFAULTS } from '../src/experiments/experiment-defaults.js';
import { createAssigner, explainBucket, variantRanges, type Assignment, type VariantRange } from '../src/experiments/assignment.js';
import { parseAllocations, type FlagAllocation } from './support/allocations.js';
import { usageError } from './support/cli-error.js';
import { openLineSource } from './support/line-source.js';
import { createLineWriter, type LineWriter } from './support/output.js';
import { bucketLine, explanationLines, type BucketDesign } from './support/bucket-view.js';
import type { ServerFlags } from './support/server-options.js';

export interface BucketOptions extends ServerFlags {
  experiment: number;
  allocations?: string;
  traffic?: number;
  explain?: boolean;
  json?: boolean;
}

/** Resolves the design (allocations or server), then buckets the user or every line of stdin. */
export async function runBucket(user: string, options: BucketOptions): Promise<void> {
  const design = await resolveDesign(options);
  const assign = design === undefined ? undefined : createAssigner(options.experiment, design.variants, design.traffic);
  const ranges = design === undefined ? undefined : variantRanges(design.variants);
  const writer = createLineWriter();
  const emit = (userId: string): Promise<void> | undefined => writeUser(writer, userId, options, assign?.(userId), ranges, design);
  if (user !== '-') {
    await emit(user);
  } else {
    const source = await openLineSource('-');
    for await (const line of source.lines) {
      const userId = line.trim();
      if (userId === '') continue;
      const pending = emit(userId);
      if (pending !== undefined) await pending;
    }
  }
  await writer.end();
}

function writeUser(
  writer: LineWriter,
  userId: string,
  options: BucketOptions,
  assignment: Assignment<FlagAllocation> | undefined,
  ranges: VariantRange<FlagAllocation>[] | undefined,
  design: BucketDesign | undefined,
): Promise<void> | undefined {
  const bucket = assignment?.bucket ?? explainBucket(userId, options.experiment).bucket;
  const variant = assignment === undefined ? undefined : (assignment.variant?.name ?? null);
  if (options.json) {
    if (!options.explain) return writer.line(jsonLine(userId, options.experiment, bucket, variant ?? null));
    const { input, md5, hex8, integer } = explainBucket(userId, options.experiment);
    const record = { user_id: userId, experiment_id: options.experiment, bucket, variant: variant ?? null, input, md5, hex8, integer };
    return writer.line(JSON.stringify(record));
  }
  if (options.explain) {
    let pending: Promise<void> | undefined;
    for (const text of explanationLines(explainBucket(userId, options.experiment), variant, ranges, design))
      pending = writer.line(text) ?? pending;
    return pending;
  }
  return writer.line(bucketLine(userId, bucket, variant));
}

async function resolveDesign(options: BucketOptions): Promise<BucketDesign | undefined> {
  if (options.allocations !== undefined) {
    return {
      variants: parseAllocations(options.allocations),
      traffic: options.traffic ?? EXPERIMENT_DEFAULTS.traffic_percentage,
      source: '--allocations',
    };
  }
  if (options.traffic !== undefined) throw usageError('--traffic needs --allocations');
  if (options.server === undefined) return undefined;
  const [{ ApiClient }, { ExperimentSchema }] = await Promise.all([
    import('./support/api-client.js'),
    import('../src/experiments/experiment-response.schema.js'),
  ]);
  const experiment = await new ApiClient(options).get(ApiClient.experimentsPath(options.experiment), ExperimentSchema);
  return {
    variants: experiment.variants.map((v) => ({ name: v.name, traffic_allocation: v.traffic_allocation })),
    traffic: experiment.traffic_percentage,
    source: `experiment ${experiment.id} "${experiment.name}" on the server`,
  };
}

const PLAIN_ID = /^[\w.@:+-]*$/;

/** `{user_id, experiment_id, bucket, variant}` built by hand: JSON.stringify per user dominates a million-line run. */
function jsonLine(userId: string, experimentId: number, bucket: number, variant: string | null): string {
  const name = variant === null ? 'null' : JSON.stringify(variant);
  const user = PLAIN_ID.test(userId) ? `"${userId}"` : JSON.stringify(userId);
  return `{"user_id":${user},"experiment_id":${experimentId},"bucket":${bucket},"variant":${name}}`;
}
