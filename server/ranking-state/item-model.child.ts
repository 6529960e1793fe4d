/**
 * Child process of an item model build (item-model.agent.ts): EASE's inverse runs here, off the
 * serving process, and its memory goes back to the system when it exits. It gets one job over
 * IPC (the pairs, or the database to read them from, read-only), sends back the model (or its error), and exits; it exits too when the serving process goes away.
 */
import { buildItemModel, type ItemModelJob } from './item-model.job.js';

process.once('disconnect', () => process.exit(0));
process.once('message', (job: ItemModelJob) => {
  buildItemModel(job).then(
    (build) => process.send?.({ build }, () => process.exit(0)),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
  );
});
