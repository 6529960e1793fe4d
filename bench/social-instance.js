// The Mastodon-compatible test instance (test/helpers/mastodon-instance.ts, bundled by
// bench/social.js) as a process of its own, so that its CPU is neither the load
// generator's nor the service's. Prints one JSON line {origin, host, token} once it
// listens on 127.0.0.1, then serves until SIGTERM.
//   node bench/social-instance.js <bundled module> [statuses]
import { pathToFileURL } from 'node:url';

const [bundle, statuses = '300'] = process.argv.slice(2);
if (!bundle) throw new Error('usage: node bench/social-instance.js <bundled mastodon-instance module> [statuses]');
const { startMastodonInstance } = await import(pathToFileURL(bundle).href);
// No 429s and a large X-RateLimit-Remaining: the run sends far more than 300 requests per 5 minutes.
const instance = await startMastodonInstance({ statuses: Number(statuses), rateLimit: 1_000_000_000 });
// The instance records every request for tests; here that record would only grow.
setInterval(() => instance.resetCounts(), 1_000).unref();
console.log(JSON.stringify({ origin: instance.origin, host: instance.host, token: instance.token }));
process.once('SIGTERM', () => {
  instance.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
