/**
 * Registers the experiments feature: its routes, the `experiment_gates` agent, and the
 * RankingPolicy the recommendations feature ranks with (returned for features.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import type { RankingPolicy } from '../recommendations/ranking-policy.types.js';
import { experimentRankingPolicy } from './experiment-ranking.policy.js';
import { ExperimentResultsService } from './experiment-results.service.js';
import { experimentRoutes } from './experiment.routes.js';
import { ExperimentRuntime } from './experiment-runtime.js';
import { ExperimentService } from './experiment.service.js';
import { gatesAgent } from './gates.agent.js';
import { ServingRecorder } from './serving-recorder.js';
import { InterleavingServing } from './interleaving/interleaving-serving.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The experiments feature's services (the recommendations wiring and tests use them). */
    experiments: ExperimentsFeature;
  }
}

export interface ExperimentsFeature {
  experiments: ExperimentService;
  results: ExperimentResultsService;
  runtime: ExperimentRuntime;
  rankingPolicy: RankingPolicy;
}

/** Experiments routes, the gates agent, and the ranking policy. */
export async function registerExperiments(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database' | 'agents' | 'agentIntervalSeconds'> & { privacy: PrivacyPolicy },
  now: () => number = Date.now,
): Promise<ExperimentsFeature> {
  const db = context.database.db;
  const runtime = new ExperimentRuntime(db, { now, privacy: context.privacy });
  const recorder = new ServingRecorder(db, app.log, now, context.privacy);
  const experiments = new ExperimentService({ db, runtime, now });
  const results = new ExperimentResultsService(db, now);
  context.agents.register(gatesAgent({ db, experiments, results, runtime, now, log: app.log }, context.agentIntervalSeconds));
  await app.register(experimentRoutes, { experiments, results });
  app.addHook('onClose', async () => recorder.drain());
  const feature = {
    experiments,
    results,
    runtime,
    rankingPolicy: experimentRankingPolicy(
      runtime,
      recorder,
      new InterleavingServing(db, runtime, { now, log: app.log, privacy: context.privacy }),
    ),
  };
  app.decorate('experiments', feature);
  return feature;
}
