// Ranking quality (issue 25, see bench/README.md, "Ranking quality"): `recsvc eval` on the
// synthetic feed and catalogue (src/evaluation/generate.ts), for several data seeds, printed
// as the Markdown tables the README records: for users with history and without, the fitted
// default's nDCG@20 (the point the ranking_fit agent reaches from the history before the cutoff:
// `recsvc eval --fit`) and the shipped default's, with their 95% per-user bootstrap intervals,
// every baseline's, and the paired differences to the best baseline of that group.
// Run after `npx tsc -p tsconfig.build.json`: node bench/quality.js (npm run bench:quality builds first).
// BENCH_SEEDS (default "1,2,3"), BENCH_REGIMES (default "feed,catalogue"), BENCH_SAMPLES (bootstrap
// resamples, default 1000), BENCH_TUNE=1 (also --tune: the tuned candidate's row).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/recsvc', import.meta.url));
const seeds = (process.env.BENCH_SEEDS ?? '1,2,3').split(',').map(Number);
const regimes = (process.env.BENCH_REGIMES ?? 'feed,catalogue').split(',');
const samples = process.env.BENCH_SAMPLES ?? '1000';
const tune = process.env.BENCH_TUNE === '1';

function evalJson(regime, seed) {
  const args = [
    BIN,
    'eval',
    '--synthetic',
    regime,
    '--data-seed',
    String(seed),
    '--samples',
    samples,
    '--json',
    '--fit',
    ...(tune ? ['--tune'] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`recsvc eval exited ${code}`))));
  });
}

const f = (x) => x.toFixed(3);
/** The point the fit reached from the history before the cutoff (what the ranking_fit agent applies). */
const fittedPoint = (report) => `collab ${report.fitted.point.collaborative}, ${report.fitted.point.recency_half_life_hours} h`;
const est = (e) => `${f(e.value)} [${f(e.ci_low)}, ${f(e.ci_high)}]`;

const rows = [];
for (const regime of regimes) {
  for (const seed of seeds) {
    const started = Date.now();
    const report = await evalJson(regime, seed);
    process.stderr.write(`${regime} seed ${seed}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    for (const group of report.groups) {
      if (group.group === 'all' || group.users === 0) continue;
      const byName = new Map(group.rankers.map((r) => [r.name, r.metrics.ndcg]));
      const best = group.best_baseline;
      const vsBest = group.comparisons.find((c) => c.candidate === 'default' && c.against === best && c.metric === 'ndcg');
      const fittedVsBest = group.comparisons.find((c) => c.candidate === 'fitted' && c.against === best && c.metric === 'ndcg');
      const baselines = group.rankers.filter((r) => r.kind === 'baseline').map((r) => `${r.name} ${f(r.metrics.ndcg.value)}`);
      const tuned = byName.get('tuned');
      rows.push(
        `| ${regime} | ${seed} | ${group.group.replace('_', ' ')} | ${group.users} | ${fittedPoint(report)} | ${est(byName.get('fitted'))} | ${best} ${f(byName.get(best).value)} | ${fittedVsBest ? est(fittedVsBest) : '—'} | ${est(byName.get('default'))} | ${vsBest ? est(vsBest) : '—'} |${tune ? ` ${tuned ? est(tuned) : '—'} |` : ''} ${baselines.join(', ')} |`,
      );
    }
  }
}
process.stdout.write(
  [
    `| data | seed | users | n | fitted default | its nDCG@20 | best baseline | fitted − best | shipped default nDCG@20 | shipped − best |${tune ? ' tuned |' : ''} every baseline |`,
    `|---|---|---|---|---|---|---|---|---|---|${tune ? '---|' : ''}---|`,
    ...rows,
    '',
  ].join('\n'),
);
