// Ranking quality as served (issue 25): the independent evaluator's protocol, run against a real
// `recsvc serve`, beside what `recsvc eval` predicts for the same data. See bench/README.md,
// "Served against predicted".
//
// For each regime and data seed: `recsvc eval --synthetic <regime> --fit --write-data` gives the
// prediction (the fitted default's nDCG@20 for users with and without history, and every
// baseline's) and the data as import files; a fresh server on an empty SQLite database is given
// every post (`recsvc import posts`) and the interactions before eval's cutoff, with their real
// times (`recsvc import interactions`); once the service has built its item model and fitted its
// default after the import (rows in `item_models` and `ranking_fits`), each of eval's test users
// asks `GET /api/v1/recommendations?limit=20` once, and the list is scored against the same
// targets with the same nDCG@20 (eval's split rule: the posts a user engaged with after their
// first interaction past the cutoff, created by then, not engaged with before).
//
// The two differ by design in one way: eval asks each user at their own first test instant over
// the pool replayed to it; the service is asked once, after the replay, at its own clock.
//
// Run after `npx tsc -p tsconfig.build.json`: node bench/served-quality.js
// BENCH_SEEDS (default "1"), BENCH_REGIMES (default "feed,catalogue"), BENCH_DATA (a directory holding
// posts.jsonl and interactions.jsonl, e.g. `recsvc eval --write-data`'s, instead of the regimes), BENCH_SAMPLES (eval's
// bootstrap resamples, default 200), BENCH_WAIT_SECONDS (for the fit over the whole import, default 600), BENCH_KEEP=1
// (keeps each run's data and database, and says where).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { freePort, waitForHealth } from './harness.js';
import { bootstrapPairedDifference, drawResamples } from '../dist/src/evaluation/bootstrap.js';

const BIN = fileURLToPath(new URL('../bin/recsvc', import.meta.url));
const seeds = (process.env.BENCH_SEEDS ?? '1').split(',').map(Number);
const dataDir = process.env.BENCH_DATA;
const regimes = dataDir === undefined ? (process.env.BENCH_REGIMES ?? 'feed,catalogue').split(',') : ['files'];
const samples = process.env.BENCH_SAMPLES ?? '200';
const waitSeconds = Number(process.env.BENCH_WAIT_SECONDS ?? 600);
// all: every post, those created after the cutoff too (with their future times); before: only
// the posts created before the cutoff (then a target created after it cannot be served).
const postsImported = process.env.BENCH_POSTS ?? 'all';
const K = 20;

const recsvc = (args, options = {}) => execFileSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
const readJsonl = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

/** Eval's split (src/evaluation/dataset.ts temporalSplit): test users, their instants and targets. */
function testUsers(posts, interactions, cutoffMs) {
  const createdAt = new Map(posts.map((p) => [p.id, Date.parse(p.created_at)]));
  const before = new Map();
  const later = new Map();
  for (const i of interactions) {
    const at = Date.parse(i.created_at);
    const into = at < cutoffMs ? before : later;
    if (!into.has(i.user_id)) into.set(i.user_id, []);
    into.get(i.user_id).push({ postId: i.post_id, at });
  }
  const users = [];
  for (const [userId, events] of later) {
    events.sort((a, b) => a.at - b.at);
    const atMs = events[0].at;
    const history = new Set((before.get(userId) ?? []).map((e) => e.postId));
    const targets = new Set();
    for (const e of events) {
      const created = createdAt.get(e.postId);
      if (created === undefined || created > atMs || history.has(e.postId)) continue;
      targets.add(e.postId);
    }
    // The judge's protocol: one ask at the cutoff, so the targets are the posts that existed then.
    const atCutoff = new Set();
    for (const e of events) {
      const created = createdAt.get(e.postId);
      if (created !== undefined && created < cutoffMs && !history.has(e.postId)) atCutoff.add(e.postId);
    }
    users.push({ userId, withHistory: history.size > 0, targets, atCutoff, history });
  }
  return users;
}

/** Baselines asked at the cutoff, from the training interactions: popularity, recent popularity (6 h), hot. */
function cutoffBaselines(posts, train, cutoffMs) {
  const createdAt = new Map(posts.map((p) => [p.id, Date.parse(p.created_at)]));
  const positives = new Map();
  const recent = new Map();
  for (const i of train) {
    positives.set(i.post_id, (positives.get(i.post_id) ?? 0) + 1);
    if (Date.parse(i.created_at) >= cutoffMs - 6 * 3_600_000) recent.set(i.post_id, (recent.get(i.post_id) ?? 0) + 1);
  }
  const ranked = (score) =>
    [...positives.keys()]
      .filter((id) => createdAt.get(id) < cutoffMs)
      .map((id) => [id, score(id)])
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id]) => id);
  return {
    popularity: ranked((id) => positives.get(id)),
    recent_6h: ranked((id) => recent.get(id) ?? 0),
    hot: ranked((id) => positives.get(id) / Math.pow((cutoffMs - createdAt.get(id)) / 3_600_000 + 2, 1.8)),
  };
}

/** BENCH_DATA's posts.jsonl and interactions.jsonl copied into the run's directory, as eval's arguments. */
function filesIn(dir) {
  for (const name of ['posts.jsonl', 'interactions.jsonl']) copyFileSync(join(dataDir, name), join(dir, name));
  return ['--posts', join(dir, 'posts.jsonl'), '--interactions', join(dir, 'interactions.jsonl')];
}

/** A baseline's list for a user: the global list without what the user engaged with before. */
const forUser = (list, history) => list.filter((id) => !history.has(id)).slice(0, K);

function ndcg(list, targets) {
  let dcg = 0;
  list.slice(0, K).forEach((id, i) => {
    if (targets.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(targets.size, K); i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

async function served(regime, seed) {
  const dir = mkdtempSync(join(tmpdir(), `recsvc-served-${regime}-${seed}-`));
  let server;
  try {
    const data = dataDir === undefined ? ['--synthetic', regime, '--data-seed', String(seed), '--write-data', dir] : filesIn(dir);
    const predicted = JSON.parse(recsvc(['eval', ...data, '--fit', '--json', '--samples', samples]));
    const cutoffMs = Date.parse(predicted.cutoff);
    const posts = readJsonl(join(dir, 'posts.jsonl'));
    const interactions = readJsonl(join(dir, 'interactions.jsonl'));
    const train = interactions.filter((i) => Date.parse(i.created_at) < cutoffMs);
    writeFileSync(join(dir, 'train.jsonl'), train.map((i) => JSON.stringify(i)).join('\n') + '\n');
    const postsFile = join(dir, 'posts-imported.jsonl');
    const imported = postsImported === 'all' ? posts : posts.filter((p) => Date.parse(p.created_at) < cutoffMs);
    writeFileSync(postsFile, imported.map((p) => JSON.stringify(p)).join('\n') + '\n');

    const db = join(dir, 'recsvc.db');
    const env = { ...process.env, RECSVC_PSEUDONYM_KEY: '0123456789abcdef'.repeat(4) };
    const token = JSON.parse(
      recsvc(['token', 'create', '--scopes', 'read,write,admin', '--label', 'bench', '--db', db, '--json'], { env }),
    ).token;
    const port = await freePort();
    server = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', String(port), '--rate-limit', 'off', '--log-level', 'warn'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env,
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base, server, 120);
    const importEnv = { ...env, RECSVC_SERVER: base, RECSVC_TOKEN: token };
    const importStart = Date.now();
    recsvc(['import', 'posts', postsFile, '--json', '--restart'], { env: importEnv });
    recsvc(['import', 'interactions', join(dir, 'train.jsonl'), '--json', '--restart'], { env: importEnv });
    const importEnd = Date.now();

    // The import's trigger builds the item model, then fits with it (docs/ranking.md).
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    // RECSVC_RANKING_FIT pinned to a point (or off): no fit to wait for, only the item model.
    const pinned = process.env.RECSVC_RANKING_FIT !== undefined && process.env.RECSVC_RANKING_FIT !== 'auto';
    let fit = pinned ? { status: 'pinned', choice: process.env.RECSVC_RANKING_FIT } : undefined;
    const deadline = Date.now() + waitSeconds * 1000;
    while (pinned && Date.now() < deadline && reader.prepare('SELECT COUNT(*) AS n FROM item_models').get().n === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    while (!pinned && Date.now() < deadline) {
      // A fit over the whole import: one started while the import went on counts fewer interactions.
      fit = reader
        .prepare('SELECT status, choice, summary FROM ranking_fits WHERE interactions >= ? ORDER BY created_at_ms DESC LIMIT 1')
        .get(train.length);
      if (fit !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const model = reader.prepare('SELECT COUNT(*) AS n FROM item_models').get().n;
    reader.close();
    if (fit === undefined) throw new Error(`${regime} seed ${seed}: no ranking fit within ${waitSeconds} s of the import`);
    const fitMs = Date.now() - importEnd;

    const users = testUsers(posts, interactions, cutoffMs);
    const scores = { with_history: [], without_history: [] };
    const baselines = cutoffBaselines(posts, train, cutoffMs);
    const atCutoff = {
      with_history: { served: [], popularity: [], recent_6h: [], hot: [] },
      without_history: { served: [], popularity: [], recent_6h: [], hot: [] },
    };
    for (const user of users) {
      const response = await fetch(`${base}/api/v1/recommendations?user_id=${encodeURIComponent(user.userId)}&limit=${K}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) throw new Error(`recommendations for ${user.userId}: ${response.status} ${await response.text()}`);
      const list = (await response.json()).map((item) => item.id);
      const group = user.withHistory ? 'with_history' : 'without_history';
      if (user.targets.size > 0) scores[group].push(ndcg(list, user.targets));
      if (user.atCutoff.size > 0) {
        atCutoff[group].served.push(ndcg(list, user.atCutoff));
        for (const name of ['popularity', 'recent_6h', 'hot'])
          atCutoff[group][name].push(ndcg(forUser(baselines[name], user.history), user.atCutoff));
      }
    }
    const rows = [];
    for (const group of ['with_history', 'without_history']) {
      const predictedGroup = predicted.groups.find((g) => g.group === group);
      const value = (name) => predictedGroup.rankers.find((r) => r.name === name)?.metrics.ndcg.value;
      const baselines = predictedGroup.rankers.filter((r) => r.kind === 'baseline');
      const best = baselines.reduce((a, b) => (b.metrics.ndcg.value > a.metrics.ndcg.value ? b : a));
      rows.push({
        regime,
        seed,
        posts: postsImported,
        group,
        users: scores[group].length,
        served: mean(scores[group]),
        predicted_fitted: value('fitted'),
        best_baseline: `${best.name} ${best.metrics.ndcg.value.toFixed(3)}`,
        at_cutoff: Object.fromEntries(Object.entries(atCutoff[group]).map(([name, values]) => [name, Number(mean(values).toFixed(4))])),
        at_cutoff_users: atCutoff[group].served.length,
        at_cutoff_vs_best: servedMinusBest(atCutoff[group]),
        fit: `${fit.status}: ${fit.choice}`,
        fit_after_s: Math.round(fitMs / 1000),
        item_model: model > 0,
        import_s: Math.round((importEnd - importStart) / 1000),
      });
    }
    return rows;
  } finally {
    server?.kill('SIGTERM');
    await new Promise((resolve) => (server && server.exitCode === null ? server.once('exit', resolve) : resolve()));
    if (process.env.BENCH_KEEP === '1') console.error(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Served minus the best of the baselines at the cutoff (by mean), per user, with a paired
 * per-user bootstrap 95% interval (1,000 resamples, seed 2026: recsvc eval's estimator).
 */
function servedMinusBest(groupScores) {
  const names = ['popularity', 'recent_6h', 'hot'];
  const best = names.reduce((a, b) => (mean(groupScores[b]) > mean(groupScores[a]) ? b : a));
  const users = groupScores.served.length;
  if (users === 0) return { baseline: best, difference: null, ci_low: null, ci_high: null };
  const estimate = bootstrapPairedDifference(
    drawResamples(users, 1000, 2026),
    Float64Array.from(groupScores.served),
    Float64Array.from(groupScores[best]),
  );
  const round = (x) => Number(x.toFixed(4));
  return { baseline: best, difference: round(estimate.value), ci_low: round(estimate.ci_low), ci_high: round(estimate.ci_high) };
}

const all = [];
for (const regime of regimes) {
  for (const seed of seeds) {
    const rows = await served(regime, seed);
    for (const row of rows) console.log(JSON.stringify(row));
    all.push(...rows);
  }
}
console.log(
  '\n| data | seed | posts | users | n | served nDCG@20 | eval fitted (predicted) | best baseline (eval) | asked at the cutoff: n, served, popularity, recent 6 h, hot | served − best at the cutoff [95%] | fit after the import |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of all) {
  console.log(
    `| ${r.regime} | ${r.seed} | ${r.posts} | ${r.group.replace('_', ' ')} | ${r.users} | ${r.served.toFixed(3)} | ${r.predicted_fitted?.toFixed(3)} | ${r.best_baseline} | ${r.at_cutoff_users}: ${['served', 'popularity', 'recent_6h', 'hot'].map((n) => r.at_cutoff[n].toFixed(3)).join(' / ')} | ${vsBest(r.at_cutoff_vs_best)} | ${r.fit} (${r.fit_after_s} s) |`,
  );
}

function vsBest(d) {
  if (d.difference === null) return `${d.baseline}: no user`;
  const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
  return `${d.baseline} ${signed(d.difference)} [${signed(d.ci_low)}, ${signed(d.ci_high)}]`;
}
