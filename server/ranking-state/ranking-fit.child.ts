/**
 * Child process of a ranking fit (ranking-fit.agent.ts): the evaluation runs here, off the
 * serving process, so requests are not held while hundreds of users are ranked a dozen ways,
 * and the memory the evaluation used goes back to the system when it exits (a worker thread's
 * freed heap stayed in the serving process's RSS: +110 MB after one fit on the bench data).
 * It gets one job over IPC (the data, or the database to read it from, read-only), sends back
 * the fit's result (or its error), and exits; it exits too
 * when the serving process goes away (the IPC channel closes).
 */
import { fitRankingDefault } from '../../src/evaluation/fit.js';
import { fitJobDataset, type FitJob } from './ranking-fit.job.js';

process.once('disconnect', () => process.exit(0));
process.once('message', (job: FitJob) => {
  fitJobDataset(job)
    .then((data) => fitRankingDefault(data, job.current, job.options))
    .then(
      (result) => process.send?.({ result }, () => process.exit(0)),
      (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
    );
});
