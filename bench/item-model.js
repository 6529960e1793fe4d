// The periodic item–item model's build (src/ranking/item-model.ts; bench/README.md, "After: a
// periodic item–item model"): fitItemModel on the positive pairs of the synthetic feed (6,000
// posts, 1,500 users: enough posts for the largest bound) for each bound on posts, timed, with
// the process's peak RSS and the model's estimated bytes. One bound per child process, so each
// peak is its own. Run after `npx tsc -p tsconfig.build.json`: node bench/item-model.js
// (BENCH_ITEMS, default "500,1000,2000,3000"; BENCH_REGIME, default "feed").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bounds = (process.env.BENCH_ITEMS ?? '500,1000,2000,3000').split(',').map(Number);
const regime = process.env.BENCH_REGIME ?? 'feed';

if (process.argv[2] === 'one') {
  const maxItems = Number(process.argv[3]);
  const { generateSynthetic, generatorOptions } = await import('../dist/src/evaluation/generate.js');
  const { fitItemModel, ItemModel } = await import('../dist/src/ranking/item-model.js');
  const data = generateSynthetic(generatorOptions(regime, { seed: 1 }));
  const pairs = data.interactions.map((i) => ({ userId: i.user_id, postId: i.post_id }));
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const fit = fitItemModel(pairs, { maxItems });
  const seconds = (performance.now() - started) / 1000;
  const model = new ItemModel(fit.data);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `| ${regime} | ${maxItems} | ${model.size} | ${fit.pairs} | ${seconds.toFixed(1)} s | ${((peak - rssBefore) / 2 ** 20).toFixed(0)} MB | ${((32 * model.size ** 2) / 2 ** 20).toFixed(0)} MB | ${model.entries} | ${(model.estimatedBytes() / 2 ** 20).toFixed(2)} MB |`,
  );
} else {
  console.log('| data | maxItems | posts fitted | pairs | build | peak RSS − before | 32·n² | entries kept | model held |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const n of bounds) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'one', String(n)], { stdio: 'inherit' });
    if (r.status !== 0) process.exitCode = 1;
  }
}
