/**
 * The experiment life cycle: create (validated by the domain's rules), read, list, and
 * start/pause/stop through the state machine. Each change runs in one transaction,
 * opens or closes the ACTIVE period that decides which events count, and then tells
 * the runtime to forget its cached experiments and enrolments.
 */
import type { Kysely } from 'kysely';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import type { ExperimentCreate, GateThresholds } from '../../src/experiments/experiment.schema.js';
import type { ExperimentStatusReport } from '../../src/experiments/experiment-response.schema.js';
import { DEFAULT_ANALYSIS_METHOD, type AnalysisMethod } from '../../src/experiments/stats/sequential.js';
import { sampleRatioMismatch } from '../../src/experiments/stats/srm.js';
import { nextStatus, type ExperimentAction, type ExperimentStatus } from '../../src/experiments/state-machine.js';
import { assertValidExperiment } from '../../src/experiments/validate-experiment.js';
import { DEFAULT_GUARDRAIL_METRICS, DEFAULT_PRIMARY_METRIC } from '../../src/experiments/metrics.js';
import { DEFAULT_GATE_RULE } from '../../src/experiments/gates/gates.js';
import { ConflictError, NotFoundError } from '../../src/errors.js';
import { allocationDiff, describeUserMoves, proposedAllocations, type AllocationDiff } from '../../src/experiments/allocation-diff.js';
import type { AllocationChange, AllocationDiffRequest } from '../../src/experiments/allocation-diff.schema.js';
import type { Database } from '../platform/db/database.js';
import { countAssignmentsByVariant, streamAssignments } from './assignment.repository.js';
import {
  closeActivePeriod,
  findExperimentRow,
  insertExperiment,
  insertVariants,
  listExperimentRows,
  type ExperimentPage,
  listVariantRows,
  openActivePeriod,
  updateExperimentStatus,
  updateVariantAllocations,
} from './experiment.repository.js';
import { toExperiment, type StoredExperiment } from './experiment.mapper.js';
import type { ExperimentRuntime } from './experiment-runtime.js';
import type { InterleavingAnalysis } from '../../src/experiments/interleaving/interleaving-analysis.schema.js';
import { analyzeInterleavingExperiment } from './interleaving/interleaving-results.js';
import { setExperimentType } from './interleaving/interleaving.repository.js';

export interface ExperimentServiceDeps {
  db: Kysely<Database>;
  runtime: ExperimentRuntime;
  now: () => number;
}

export class ExperimentService {
  /** The deployment's gate thresholds (integration settings), when an admin set them. */
  private gateDefaults: GateThresholds | undefined;

  constructor(private readonly deps: ExperimentServiceDeps) {}

  /**
   * Gate thresholds for experiments created from now on without their own `gates` (an
   * experiment's own object wins whole: validation fills what it omits with the spec's
   * defaults); undefined: the spec's defaults. An experiment keeps the thresholds it was
   * created with.
   */
  useGateDefaults(thresholds: GateThresholds | undefined): void {
    this.gateDefaults = thresholds;
  }

  /** Creates a DRAFT experiment; 400 naming the field for any rule it breaks. */
  async create(input: ExperimentCreate): Promise<StoredExperiment> {
    assertValidExperiment(input);
    const at = new Date(this.deps.now()).toISOString();
    const primary = input.primary_metric ?? DEFAULT_PRIMARY_METRIC;
    const guardrails = input.guardrail_metrics ?? DEFAULT_GUARDRAIL_METRICS.filter((metric) => metric !== primary);
    const id = await this.deps.db.transaction().execute(async (trx) => {
      const experimentId = await insertExperiment(trx, {
        name: input.name,
        description: input.description ?? '',
        status: 'DRAFT',
        traffic_percentage: input.traffic_percentage ?? EXPERIMENT_DEFAULTS.traffic_percentage,
        minimum_sample_size: input.minimum_sample_size ?? EXPERIMENT_DEFAULTS.minimum_sample_size,
        confidence_level: input.confidence_level ?? EXPERIMENT_DEFAULTS.confidence_level,
        primary_metric: primary,
        guardrail_metrics: JSON.stringify(guardrails),
        gate_rule: input.gate_rule ?? DEFAULT_GATE_RULE,
        analysis_method: input.analysis_method ?? DEFAULT_ANALYSIS_METHOD,
        gates:
          input.gates === undefined && this.gateDefaults === undefined ? null : JSON.stringify({ ...this.gateDefaults, ...input.gates }),
        created_at: at,
        updated_at: at,
        started_at: null,
        ended_at: null,
      });
      await insertVariants(
        trx,
        input.variants.map((variant, position) => ({
          experiment_id: experimentId,
          position,
          name: variant.name,
          description: variant.description ?? '',
          traffic_allocation: variant.traffic_allocation,
          algorithm_config: JSON.stringify(variant.algorithm_config),
          is_control: variant.is_control ? 1 : 0,
          blocked: 0,
          blocked_at: null,
          blocked_reason: null,
        })),
      );
      if (input.type === 'interleaving') await setExperimentType(trx, experimentId, input.type);
      return experimentId;
    });
    return this.get(id);
  }

  /** Experiments (optionally of one status), oldest first; `page` bounds the list (the HTTP list always pages). */
  async list(status?: ExperimentStatus, page?: ExperimentPage): Promise<StoredExperiment[]> {
    const rows = await listExperimentRows(this.deps.db, status ? [status] : undefined, page);
    const variants = await listVariantRows(
      this.deps.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => toExperiment(row, variants));
  }

  /** The experiment; 404 when there is none with this id. */
  async get(id: number): Promise<StoredExperiment> {
    const row = await findExperimentRow(this.deps.db, id);
    if (!row) throw new NotFoundError(`Experiment ${id} does not exist`);
    return toExperiment(row, await listVariantRows(this.deps.db, [id]));
  }

  /** start / pause / stop; 409 naming the current state when the move is not allowed. */
  async transition(id: number, action: ExperimentAction): Promise<StoredExperiment> {
    const nowMs = this.deps.now();
    const at = new Date(nowMs).toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await findExperimentRow(trx, id);
      if (!row) throw new NotFoundError(`Experiment ${id} does not exist`);
      const current = row.status as ExperimentStatus;
      const next = nextStatus(current, action);
      await updateExperimentStatus(trx, id, {
        status: next,
        updated_at: at,
        ...(next === 'ACTIVE' && row.started_at === null ? { started_at: at } : {}),
        ...(next === 'COMPLETED' ? { ended_at: at } : {}),
      });
      if (current === 'ACTIVE') await closeActivePeriod(trx, id, nowMs);
      if (next === 'ACTIVE') await openActivePeriod(trx, id, nowMs);
    });
    this.deps.runtime.invalidate();
    return this.get(id);
  }

  /**
   * What new allocations would do (read-only): bucket ranges changing variant and recorded
   * assignments whose bucket would belong to another variant. One MD5 per assigned user.
   */
  async allocationDiff(id: number, request: AllocationDiffRequest): Promise<AllocationDiff> {
    return this.diffIn(this.deps.db, id, request);
  }

  /**
   * Changes the allocations (DRAFT, ACTIVE or PAUSED; 409 when COMPLETED). 409 when
   * already-assigned users would move, unless `force`: their recorded variant is kept
   * either way, only users assigned from now on follow the new ranges.
   */
  async changeAllocations(id: number, change: AllocationChange): Promise<StoredExperiment> {
    const at = new Date(this.deps.now()).toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await findExperimentRow(trx, id);
      if (!row) throw new NotFoundError(`Experiment ${id} does not exist`);
      if (row.status === 'COMPLETED') throw new ConflictError('Cannot change the allocations of an experiment in state COMPLETED');
      const diff = await this.diffIn(trx, id, change);
      if (diff.users_moving > 0 && change.force !== true) {
        throw new ConflictError(
          `Changing the allocations would move ${diff.users_moving} of ${diff.users_assigned} assigned users (${describeUserMoves(diff.moves)}); ` +
            'they would keep their recorded variant while new users of the same buckets get another: send force: true to change anyway',
        );
      }
      await updateVariantAllocations(trx, id, proposedAllocations(await this.variantsIn(trx, id), change.variants), at);
    });
    this.deps.runtime.invalidate();
    return this.get(id);
  }

  private async variantsIn(db: Kysely<Database>, id: number): Promise<StoredExperiment['variants']> {
    const row = await findExperimentRow(db, id);
    if (!row) throw new NotFoundError(`Experiment ${id} does not exist`);
    return toExperiment(row, await listVariantRows(db, [id])).variants;
  }

  private async diffIn(db: Kysely<Database>, id: number, request: AllocationDiffRequest): Promise<AllocationDiff> {
    const current = await this.variantsIn(db, id);
    const proposed = proposedAllocations(current, request.variants);
    return allocationDiff(current, proposed, streamAssignments(db, id));
  }

  /**
   * The interleaving analysis (preference share, interval, p-value) of an experiment of type
   * `interleaving`, by its recorded analysis method unless `method` overrides it for this read.
   */
  async interleavingAnalysis(experiment: StoredExperiment, method?: AnalysisMethod): Promise<InterleavingAnalysis> {
    return analyzeInterleavingExperiment(this.deps.db, experiment, method);
  }

  /** Users assigned overall and per variant, their shares, and the SRM check. */
  async status(id: number): Promise<ExperimentStatusReport> {
    const experiment = await this.get(id);
    const counts = await countAssignmentsByVariant(this.deps.db, id);
    const users = experiment.variants.map((v) => counts.get(v.name) ?? 0);
    const total = users.reduce((a, b) => a + b, 0);
    return {
      id: experiment.id,
      name: experiment.name,
      status: experiment.status,
      users_assigned: total,
      variants: experiment.variants.map((v, i) => ({
        name: v.name,
        users_assigned: users[i] ?? 0,
        share: total > 0 ? (users[i] ?? 0) / total : 0,
        traffic_allocation: v.traffic_allocation,
        blocked: v.blocked,
      })),
      srm: sampleRatioMismatch(
        users,
        experiment.variants.map((v) => v.traffic_allocation),
      ),
    };
  }
}
