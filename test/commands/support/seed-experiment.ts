/**
 * Puts users into a running server's experiment without the recommendations endpoint:
 * assignments and served impressions are written to the server's SQLite file through the
 * server's own write functions (as the serving path records them for users at `serve`'s
 * default tracking level, `limited`: pseudonymised ids, per-user counts, no impression rows);
 * clicks and sessions are posted over HTTP as a client would.
 */
import { bucketOf, createAssigner } from '../../../src/experiments/assignment.js';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { addImpressionDayCounts } from '../../../server/experiments/experiment-data.repository.js';
import { recordAssignment } from '../../../server/experiments/assignment.repository.js';
import { addImpressionCounts } from '../../../server/experiments/serving.repository.js';
import { createPrivacyPolicy } from '../../../server/privacy/privacy.feature.js';
import { REPO_ROOT, runCli } from '../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';

export interface SeedOptions {
  experimentId: number;
  variants: { name: string; traffic_allocation: number }[];
  users: number;
  /** Force every n-th user of the second variant into the first (to make a sample ratio mismatch). */
  skewEvery?: number;
  /** Extra click probability for non-first variants, by name. */
  lift?: Record<string, number>;
}

/** What stands for each user in the server's experiment tables and exports: `pseudonymOf(user)`. */
export async function pseudonymsOf(server: ServerProcess): Promise<(userId: string) => string> {
  const database = openSqlite(server.dbPath);
  try {
    const policy = await createPrivacyPolicy(database.db, { dbPath: server.dbPath });
    return (userId) => policy.pseudonym(userId);
  } finally {
    await database.close();
  }
}

/** `user → variant` keyed by each user's pseudonym, as the server's export lists them. */
export async function byPseudonym(server: ServerProcess, assigned: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const pseudonymOf = await pseudonymsOf(server);
  return new Map([...assigned].map(([user, variant]) => [pseudonymOf(user), variant]));
}

/** Seeds users; returns user → variant as recorded (raw ids; `byPseudonym` gives the export's keys). */
export async function seedExperiment(server: ServerProcess, options: SeedOptions): Promise<Map<string, string>> {
  const assign = createAssigner(options.experimentId, options.variants);
  const assigned = new Map<string, string>();
  const database = openSqlite(server.dbPath);
  const policy = await createPrivacyPolicy(database.db, { dbPath: server.dbPath });
  const now = Date.now() - 60_000;
  const events: object[] = [];
  try {
    for (let i = 0; i < options.users; i++) {
      const user = `seed-${options.experimentId}-${String(i).padStart(5, '0')}`;
      let variant = assign(user).variant?.name as string;
      if (options.skewEvery && variant === options.variants[1]?.name && i % options.skewEvery === 0)
        variant = options.variants[0]?.name as string;
      assigned.set(user, variant);
      const pseudonym = policy.pseudonym(user);
      await recordAssignment(
        database.db,
        { experiment_id: options.experimentId, user_id: pseudonym, variant, assigned_at_ms: now },
        { rawUserId: user, bucket: bucketOf(user, options.experimentId) },
      );
      const impressions = 1 + (i % 9);
      const counts = [{ experimentId: options.experimentId, pseudonym, impressions }];
      await addImpressionCounts(database.db, counts);
      await addImpressionDayCounts(database.db, counts, now);
      const extra = options.lift?.[variant] ?? 0;
      const clicks = Math.min(impressions, Math.floor((((i * 7919) % 100) / 100) * impressions * (0.3 + extra)));
      const session = `s-${user}`;
      const start = new Date(now + 1000).toISOString();
      const end = new Date(now + 1000 + (10 + (i % 50)) * 1000).toISOString();
      events.push({ type: 'session_start', user_id: user, session_id: session, timestamp: start });
      for (let c = 0; c < clicks; c++) events.push({ type: 'click', user_id: user, post_id: `p${c}`, session_id: session });
      events.push({ type: 'session_end', user_id: user, session_id: session, timestamp: end });
    }
  } finally {
    await database.close();
  }
  for (let i = 0; i < events.length; i += 500) {
    const response = await fetch(`${server.url}/api/v1/analytics/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(i, i + 500) }),
    });
    if (response.status !== 201) throw new Error(`events: ${response.status} ${await response.text()}`);
  }
  return assigned;
}

/** A started server with the CLI fixture's experiment (control/recency 50/50) created, started and seeded with `users`. */
export async function startSeededExperiment(users: number): Promise<{ server: ServerProcess; id: number; assigned: Map<string, string> }> {
  const server = await startServerProcess();
  const created = await runCli(['experiment', 'create', '--file', `${REPO_ROOT}test/fixtures/cli/experiment.json`], { env: server.env });
  if (created.code !== 0) throw new Error(`experiment create exited ${created.code}: ${created.stderr}`);
  const id = Number(created.stdout.trim());
  const started = await runCli(['experiment', 'start', String(id)], { env: server.env });
  if (started.code !== 0) throw new Error(`experiment start exited ${started.code}: ${started.stderr}`);
  const variants = [
    { name: 'control', traffic_allocation: 50 },
    { name: 'recency', traffic_allocation: 50 },
  ];
  return { server, id, assigned: await seedExperiment(server, { experimentId: id, variants, users }) };
}
