/**
 * `experiment create --file` (experiment-input.ts) read in-process from real files: a YAML body
 * whose variants lack their weights is refused with a message naming the variant and the fix.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readExperimentBody } from '../../../commands/support/experiment-input.js';

const dir = mkdtempSync(join(tmpdir(), 'recsvc-input-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const failure = (path: string): Promise<string> =>
  readExperimentBody(path).then(
    () => 'accepted',
    (error: Error) => error.message,
  );

const WEIGHTS =
  'algorithm_config: { weights: { author_preference: 0.35, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.15 } }';

describe('experiment create --file', () => {
  it('names the variant without weights and shows where they go, for YAML written without them', async () => {
    const path = file(
      'no-weights.yaml',
      `name: fresh\nvariants:\n  - name: control\n    traffic_allocation: 50\n    is_control: true\n    ${WEIGHTS}\n  - name: fresh\n    traffic_allocation: 50\n`,
    );
    const message = await failure(path);
    expect(message).toContain(`--file ${path}: variants[1] ("fresh") has no algorithm_config.weights`);
    expect(message).toContain('e.g. algorithm_config: { weights: { author_preference: 0.2,');
    expect(message).not.toContain('must be an array');
  });

  it('says the weights are misplaced when they sit directly under the variant', async () => {
    const path = file(
      'flat.yml',
      'name: x\nvariants:\n  - name: a\n    weights: { author_preference: 1, content_engagement: 0, recency: 0, semantic_similarity: 0 }\n',
    );
    expect(await failure(path)).toContain(
      'variants[0] ("a") has no algorithm_config.weights; its "weights" belong under "algorithm_config"',
    );
  });

  it('says when "variants" is missing, and accepts a complete body', async () => {
    expect(await failure(file('none.yaml', 'name: x\n'))).toContain('"variants" is missing');
    const body = `name: ok\nvariants:\n  - name: a\n    ${WEIGHTS}\n  - name: b\n    ${WEIGHTS}\n`;
    expect(await failure(file('ok.yaml', body))).toBe('accepted');
  });
});
