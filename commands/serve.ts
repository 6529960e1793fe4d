/** `recsvc serve`: run the HTTP API on the embedded SQLite database or on PostgreSQL. */
import type { Command } from 'commander';
import type { ServeOptions } from './serve.action.js';

/** Registers `serve`. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API (recommendations, timelines, experiments) on SQLite or PostgreSQL')
    .option('-p, --port <port>', 'port to listen on (env RECSVC_PORT)', undefined)
    .option('--host <host>', 'address to bind (env RECSVC_HOST)', undefined)
    .option(
      '--db <path|url>',
      'SQLite database file, or postgres://user@host:port/database (env RECSVC_DATABASE_URL or RECSVC_DB)',
      undefined,
    )
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env RECSVC_LOG_LEVEL)')
    .option('--rate-limit <on|off>', 'switch rate limiting off for benchmarks (env RECSVC_RATE_LIMIT)')
    .option('--trust-proxy <addresses>', 'trust X-Forwarded-For from these proxies (env RECSVC_TRUST_PROXY)')
    .option('--public-url <url>', 'base of absolute URLs in Link headers, e.g. https://recs.example.org (env RECSVC_PUBLIC_URL)')
    .option(
      '--cors-origins <origins>',
      'browser origins allowed to call the API: * or a list such as https://elk.zone,https://phanpy.social (env RECSVC_CORS_ORIGINS)',
    )
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain); with --tls-key (env RECSVC_TLS_CERT; docs/https.md)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert (env RECSVC_TLS_KEY)')
    .option('--demo', 'load the deterministic demo data set when the database has no posts yet')
    .option('--fasp', 'serve as a Fediverse Auxiliary Service Provider under {public url}/fasp (env RECSVC_FASP=1; docs/fasp.md)')
    .option('--cluster', 'several instances serve one database: needs RECSVC_REDIS_URL (env RECSVC_CLUSTER=1)')
    .addHelpText(
      'after',
      `
Defaults: --port 8080, --host 127.0.0.1, --db ./recsvc.db, --log-level info, --rate-limit on.
Migrations run at start; a database written by a newer recsvc is refused.

Examples:
  $ recsvc serve --demo
  $ RECSVC_DB=/var/lib/recsvc.db recsvc serve --port 9000 --host 0.0.0.0
  $ recsvc serve --db postgres://recsvc@db.internal:5432/recsvc   # RECSVC_DATABASE_POOL_SIZE=10
  $ recsvc serve --rate-limit off --log-level warn     # for benchmarks
  $ recsvc serve --tls-cert fullchain.pem --tls-key privkey.pem --port 8443`,
    )
    .action(async (options: ServeOptions) => {
      const { runServe } = await import('./serve.action.js');
      await runServe(options);
    });
}
