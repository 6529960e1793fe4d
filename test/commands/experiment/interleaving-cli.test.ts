/**
 * Interleaving from the terminal, as child processes against a live server: `experiment
 * create --type interleaving` (three variants: exit 2 naming the field), and `status` /
 * `analyze` printing the preference share, its interval, the sign test and ties (`--json`:
 * the analysis object). Users are put in the server's SQLite file as the serving path
 * records them (assignment, impressions, the team of each interleaved impression) through
 * its own write functions; their clicks go over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../../../src/experiments/assignment.js';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { recordAssignment } from '../../../server/experiments/assignment.repository.js';
import { insertInterleavingImpressions } from '../../../server/experiments/interleaving/interleaving.repository.js';
import { insertImpressions } from '../../../server/experiments/serving.repository.js';
import { runCli } from '../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { pseudonymsOf } from '../support/seed-experiment.js';

let server: ServerProcess;
let id: number;
const cli = (args: string[]) => runCli(args, { env: server.env });
const VARIANTS = ['--variant', 'control:50', '--variant', 'recency:50:0,0,1,0', '--control', 'control'];

/**
 * 30 users, 4 posts each (p0, p2 from recency; p1, p3 from control); 14 prefer recency, 6
 * control, 4 tie, 6 click nothing. Interleaving is analysed from event-level rows, kept for
 * users at tracking level `full` only (serve's default is `limited`): each user chooses `full`
 * first, over HTTP; their rows carry their pseudonym, as the serving path writes them.
 */
async function seed(): Promise<void> {
  const users = Array.from({ length: 30 }, (_, i) => `il-${String(i).padStart(2, '0')}`);
  for (const user of users) {
    const chose = await fetch(`${server.url}/api/v1/privacy?user_id=${user}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tracking_level: 'full' }),
    });
    expect(chose.status).toBe(200);
  }
  const pseudonymOf = await pseudonymsOf(server);
  const database = openSqlite(server.dbPath);
  const now = Date.now() - 60_000;
  const events: object[] = [];
  try {
    for (const [i, user] of users.entries()) {
      const pseudonym = pseudonymOf(user);
      await recordAssignment(
        database.db,
        { experiment_id: id, user_id: pseudonym, variant: i % 2 ? 'recency' : 'control', assigned_at_ms: now },
        { rawUserId: user, bucket: bucketOf(user, id) },
      );
      const posts = [0, 1, 2, 3].map((k) => `p${k}`);
      await insertImpressions(
        database.db,
        posts.map((post) => ({
          experiment_id: id,
          variant: 'x',
          user_id: pseudonym,
          post_id: post,
          score: 0.5,
          reason_code: 'RECENT',
          served_at_ms: now,
        })),
      );
      await insertInterleavingImpressions(
        database.db,
        posts.map((post, k) => ({
          experiment_id: id,
          user_id: pseudonym,
          post_id: post,
          team: k % 2 ? 'control' : 'recency',
          served_at_ms: now,
        })),
      );
      const clicked = i < 14 ? ['p0'] : i < 20 ? ['p1'] : i < 24 ? ['p0', 'p1'] : [];
      for (const post of clicked) events.push({ type: 'click', user_id: user, post_id: post });
    }
  } finally {
    await database.close();
  }
  const response = await fetch(`${server.url}/api/v1/analytics/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  server = await startServerProcess();
  const created = await cli([
    'experiment',
    'create',
    '--name',
    'rankers',
    '--type',
    'interleaving',
    '--min-sample-size',
    '10',
    // The fixed-horizon read (Wilson interval, sign test); sequential reads are tested in interleaving-offline.test.ts.
    '--method',
    'fixed',
    ...VARIANTS,
  ]);
  expect(created.code, created.stderr).toBe(0);
  id = Number(created.stdout.trim());
  expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
  await seed();
}, 120_000);
afterAll(async () => server?.stop());

describe('interleaving from the terminal', () => {
  it('refuses an interleaving experiment without exactly two variants, naming the field (exit 2)', async () => {
    const three = await cli([
      'experiment',
      'create',
      '--name',
      'three',
      '--type',
      'interleaving',
      '--control',
      'control',
      '--variant',
      'control:40',
      '--variant',
      'recency:30',
      '--variant',
      'balanced:30',
    ]);
    expect(three.code).toBe(2);
    expect(three.stderr).toMatch(/variants.*exactly two variants/);
  });

  it('status and analyze print the preference share, its interval, the sign test and ties', async () => {
    for (const command of ['status', 'analyze']) {
      const shown = await cli(['experiment', command, String(id)]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('interleaving (team draft)');
      expect(shown.stdout).toContain('with a preference 20, ties 4 (excluded), without clicks 6');
      expect(shown.stdout).toMatch(/preference for recency: 70\.0% \[48\.1%, 85\.5%\] \(95% Wilson\), p = 0\.1153/);
      expect(shown.stdout).toContain('verdict: no significant preference');
    }
    const json = await cli(['experiment', 'analyze', String(id), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: 'interleaving',
      variant: 'recency',
      users: 30,
      users_with_preference: 20,
      ties: 4,
    });
  });
});
