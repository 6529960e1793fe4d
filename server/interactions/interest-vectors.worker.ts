/**
 * Worker thread of a bulk load's interest vectors (see interest-vectors.ts): computes them
 * from the load it is started with while the loading thread writes rows, and posts the
 * stored rows back (their typed arrays moved, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { interestRows, transferables, type InterestLoad } from './interest-vectors.js';

const rows = interestRows(workerData as InterestLoad);
parentPort?.postMessage(rows, transferables(rows));
