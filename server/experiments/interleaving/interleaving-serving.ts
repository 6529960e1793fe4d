/**
 * Serving of interleaving experiments. `decorate` turns the runtime's choice for a user
 * enrolled in an ACTIVE interleaving experiment into one that names both rankers (the
 * non-control variant as team A, the control as team B) and the coin seed (per experiment,
 * user and UTC day): the recommendation service then ranks with both and merges the lists
 * by team draft (src/experiments/interleaving/interleave-ranked.ts). `record` stores the
 * team of every served interleaved item, so clicks can be credited to the ranker that
 * contributed it. Whatever variant a user was assigned, they get the same merged list.
 *
 * When either variant is blocked by a gate the experiment is not interleaved: the runtime's
 * choice stands (the control's ranking for the blocked variant's users).
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { InterleaveSpec } from '../../../src/experiments/interleaving/interleave-ranked.js';
import type { ExperimentType } from '../../../src/experiments/interleaving/experiment-type.js';
import { interleavingSeed, type Team } from '../../../src/experiments/interleaving/team-draft.js';
import type { AlgorithmConfig } from '../../../src/ranking/ranking.types.js';
import { allowanceOf } from '../../../src/privacy/tracking-level.js';
import type { Database } from '../../platform/db/database.js';
import type { PrivacyPolicy } from '../../privacy/privacy-policy.types.js';
import type { RankingChoice, ServedList } from '../../recommendations/ranking-policy.types.js';
import type { ExperimentRuntime } from '../experiment-runtime.js';
import { findExperimentTypes, insertInterleavingImpressions } from './interleaving.repository.js';

/** A ranking choice of an interleaving experiment: both rankers, the seed, and which variant each team is. */
export interface InterleavedChoice extends RankingChoice {
  readonly interleave: InterleaveSpec<AlgorithmConfig> & { readonly teams: Readonly<Record<Team, string>> };
}

/** A served list whose items may carry their team (set by the recommendation service for interleaved lists). */
type TeamServedList = Omit<ServedList, 'items'> & { readonly items: ReadonlyArray<ServedList['items'][number] & { readonly team?: Team }> };

/** What the store asks the privacy policy: may event rows be kept for the user, and their pseudonym. */
export type InterleavingPrivacy = Pick<PrivacyPolicy, 'allowanceFor' | 'pseudonym'>;

/** Without a privacy policy (tests, or before it is wired): rows are kept under the user id itself. */
const KEEP_ALL: InterleavingPrivacy = { allowanceFor: () => allowanceOf('full'), pseudonym: (userId) => userId };

export interface InterleavingServingOptions {
  now?: () => number;
  privacy?: InterleavingPrivacy;
  log?: Pick<FastifyBaseLogger, 'error'>;
}

/** True when the choice names two rankers to interleave. */
export function isInterleavedChoice(choice: RankingChoice): choice is InterleavedChoice {
  return (choice as Partial<InterleavedChoice>).interleave !== undefined;
}

export class InterleavingServing {
  private readonly types = new Map<number, ExperimentType>();
  private readonly now: () => number;
  private readonly privacy: InterleavingPrivacy;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runtime: Pick<ExperimentRuntime, 'openExperiments'>,
    private readonly options: InterleavingServingOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.privacy = options.privacy ?? KEEP_ALL;
  }

  /** The choice, naming both rankers when the user's experiment interleaves (else unchanged). */
  async decorate(userId: string, choice: RankingChoice): Promise<RankingChoice> {
    const enrolment = choice.enrolment;
    if (!enrolment || (await this.typeOf(enrolment.experimentId)) !== 'interleaving') return choice;
    const experiment = (await this.runtime.openExperiments()).find((e) => e.id === enrolment.experimentId);
    const treatment = experiment?.variants.find((v) => !v.isControl);
    const control = experiment?.control;
    if (!experiment || experiment.status !== 'ACTIVE' || !treatment || !control || treatment.blocked || control.blocked) return choice;
    const interleaved: InterleavedChoice = {
      config: treatment.config,
      algorithm: `exp${experiment.id}:interleaved`,
      enrolment,
      interleave: {
        configs: [treatment.config, control.config],
        seed: interleavingSeed(experiment.id, userId, this.now()),
        teams: { A: treatment.name, B: control.name },
      },
    };
    return interleaved;
  }

  /** Stores the team of every item of an interleaved list (never throws: a failure is logged). */
  async record(list: ServedList): Promise<void> {
    const served = list as TeamServedList;
    const choice = served.choice;
    if (served.failed || !choice.enrolment || !isInterleavedChoice(choice) || !this.privacy.allowanceFor(served.userId).storeEventRows)
      return;
    const { experimentId } = choice.enrolment;
    const userId = this.privacy.pseudonym(served.userId);
    const servedAtMs = this.now();
    const rows = served.items.flatMap((item) =>
      item.team === undefined
        ? []
        : [
            {
              experiment_id: experimentId,
              user_id: userId,
              post_id: item.postId,
              team: choice.interleave.teams[item.team],
              served_at_ms: servedAtMs,
            },
          ],
    );
    if (rows.length === 0) return;
    try {
      await insertInterleavingImpressions(this.db, rows);
    } catch (error) {
      this.options.log?.error({ err: error, experimentId }, 'recording interleaved impressions failed');
    }
  }

  private async typeOf(experimentId: number): Promise<ExperimentType | undefined> {
    // An experiment's type never changes: cached for good (one entry per experiment).
    if (!this.types.has(experimentId)) {
      for (const [id, type] of await findExperimentTypes(this.db, [experimentId])) this.types.set(id, type);
    }
    return this.types.get(experimentId);
  }
}
