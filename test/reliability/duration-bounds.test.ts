/**
 * Duration settings are bounded at start: past its bounds a setting stops `recsvc serve` with
 * exit 2 and one line naming it and its bounds. The agent interval's upper bound is what keeps
 * every agent's timer within Node's 2^31 − 1 ms: at 35,792 s the retention agent (60 intervals)
 * would wait 24.86 days, which Node turns into 1 ms — the agent then ran in a loop. At the bound
 * itself the server starts and schedules its agents without a TimeoutOverflowWarning.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { killStartedServers, startRecsvc } from './support/recsvc-server.js';

afterAll(killStartedServers);

/** Setting, a value past its bounds, and the bounds the message must state. */
const OUT_OF_BOUNDS: Array<[string, string, string]> = [
  ['RECSVC_AGENT_INTERVAL', '35792', 'seconds from 0.01 to 35,791'],
  ['RECSVC_AGENT_INTERVAL', '0', 'seconds from 0.01 to 35,791'],
  ['RECSVC_REQUEST_TIMEOUT_MS', '2147483648', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_HEADERS_TIMEOUT_MS', '0', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_CONNECTION_TIMEOUT_MS', '99999999999', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_KEEP_ALIVE_TIMEOUT_MS', '3000000000', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_MAX_EVENT_LOOP_DELAY_MS', '3000000000', 'milliseconds from 0 to 2,147,483,647'],
  ['RECSVC_INSTANCE_CONNECT_TIMEOUT_MS', '3000000000', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_INSTANCE_HEADERS_TIMEOUT_MS', '3000000000', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_INSTANCE_BODY_TIMEOUT_MS', '3000000000', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_INSTANCE_REQUEST_TIMEOUT_MS', '3000000000', 'milliseconds from 1 to 2,147,483,647'],
  ['RECSVC_SOCIAL_TOKEN_CACHE_SECONDS', '2147484', 'seconds from 0 to 2,147,483'],
  ['RECSVC_SOCIAL_TOKEN_STALE_SECONDS', '9999999', 'seconds from 0 to 2,147,483'],
  ['RECSVC_OAUTH_ACCESS_TOKEN_TTL', '59', 'seconds from 60 to 315,360,000'],
  ['RECSVC_OAUTH_REFRESH_TOKEN_TTL', '9999999999', 'seconds from 60 to 315,360,000'],
  ['RECSVC_LLM_TIMEOUT_MS', '300001', 'from 100 to 300000'],
];

describe('duration settings out of bounds', () => {
  it('stop serve with exit 2 and one line naming the setting and its bounds', async () => {
    const db = join(tempDir('recsvc-durations-'), 'x.db');
    const results = await Promise.all(
      OUT_OF_BOUNDS.map(([name, value]) =>
        runCli(['serve', '--db', db, '--port', '0'], { env: { [name]: value, RECSVC_LLM_URL: 'http://127.0.0.1:9/v1' } }),
      ),
    );
    results.forEach((result, i) => {
      const [name, value, bounds] = OUT_OF_BOUNDS[i]!;
      expect(result.code, `${name}=${value}: ${result.stderr}`).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, name).toHaveLength(1);
      expect(lines[0]).toContain(`${name} must be`);
      expect(lines[0]).toContain(bounds);
      expect(lines[0]).toContain(`got "${value}"`);
    });
  }, 120_000);

  it('starts at the longest agent interval and schedules every agent without a timer overflow', async () => {
    const server = await startRecsvc({ env: { RECSVC_AGENT_INTERVAL: '35791' } });
    const agents = await fetch(`${server.baseUrl}/health`).then((r) => r.status);
    expect(agents).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).not.toMatch(/TimeoutOverflowWarning|does not fit into a 32-bit signed integer/);
  });
});
