/**
 * `recsvc bucket` buckets the canonical user id (canonical-user-id.ts), as the server does:
 * the spellings of one fediverse account get one bucket and variant, and `--explain` shows the
 * canonical id as the hash input; a bare local id is hashed as given, exactly the spec's rule.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const specBucket = (text: string) => Number.parseInt(createHash('md5').update(text).digest('hex').slice(0, 8), 16) % 100;
const bucket = async (user: string) => {
  const result = await runCli(['bucket', user, '--experiment', '3', '--allocations', 'a=50,b=50', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { bucket: number; variant: string };
};

describe('recsvc bucket on fediverse ids', () => {
  it('gives @Alice@Mastodon.Social, acct:alice@mastodon.social and alice@mastodon.social one bucket and variant', async () => {
    const expected = specBucket('alice@mastodon.social_3');
    for (const spelling of ['@Alice@Mastodon.Social', 'acct:alice@mastodon.social', 'alice@mastodon.social']) {
      expect(await bucket(spelling)).toMatchObject({ bucket: expected, variant: expected < 50 ? 'a' : 'b' });
    }
    const explained = await runCli(['bucket', '@Alice@Mastodon.Social', '--experiment', '3', '--explain', '--json']);
    expect(JSON.parse(explained.stdout)).toMatchObject({ input: 'alice@mastodon.social_3', bucket: expected });
  });

  it('hashes a bare local id as given (its bucket never changed)', async () => {
    expect((await bucket('User42')).bucket).toBe(specBucket('User42_3'));
  });
});
