/**
 * Worker thread of a ranking fit (ranking-fit.agent.ts): the evaluation runs here, off the
 * serving thread, so requests are not held while hundreds of users are ranked a dozen ways.
 * Started with the data and the current point, it posts back the fit's result (or its error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fitRankingDefault } from '../../src/evaluation/fit.js';
import { fitJobDataset, type FitJob } from './ranking-fit.job.js';

const job = workerData as FitJob;
fitRankingDefault(fitJobDataset(job), job.current, job.options).then(
  (result) => parentPort?.postMessage({ result }),
  (error: unknown) => parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
