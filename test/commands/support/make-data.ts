/**
 * Deterministic synthetic experiment data for the offline-command tests: the same users
 * written as the per-user CSV and as a JSON Lines export.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export const CSV_HEADER =
  'user_id,variant,impressions,clicks,interactions,sessions,session_seconds,bounces,feedback_positive,feedback_negative';

export interface SyntheticVariant {
  name: string;
  allocation: number;
  users: number;
  /** Click probability per impression. */
  ctr: number;
  /** Probability a feedback is positive. */
  satisfaction: number;
}

export interface SyntheticUser {
  user_id: string;
  variant: string;
  counts: number[];
}

/** A small LCG so the data (and so the expected numbers) never change between runs. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Users with impressions 0..19, binomial-ish clicks, sessions, seconds, bounces and feedback. */
export function makeUsers(variants: SyntheticVariant[], seed = 7): SyntheticUser[] {
  const next = random(seed);
  const users: SyntheticUser[] = [];
  for (const variant of variants) {
    for (let i = 0; i < variant.users; i++) {
      const impressions = Math.floor(next() * 20);
      let clicks = 0;
      for (let k = 0; k < impressions; k++) if (next() < variant.ctr) clicks++;
      const interactions = Math.min(impressions, Math.floor(next() * 3));
      const sessions = 1 + Math.floor(next() * 3);
      const seconds = Math.floor(next() * 600);
      const bounces = Math.floor(next() * (sessions + 1));
      const feedback = Math.floor(next() * 4);
      let positive = 0;
      for (let k = 0; k < feedback; k++) if (next() < variant.satisfaction) positive++;
      users.push({
        user_id: `${variant.name}-${i}`,
        variant: variant.name,
        counts: [impressions, clicks, interactions, sessions, seconds, bounces, positive, feedback - positive],
      });
    }
  }
  return users;
}

/** The CSV text of users. */
export function csvText(users: SyntheticUser[]): string {
  return `${CSV_HEADER}\n${users.map((u) => [u.user_id, u.variant, ...u.counts].join(',')).join('\n')}\n`;
}

const KEYS = ['impressions', 'clicks', 'interactions', 'sessions', 'session_seconds', 'bounces', 'feedback_positive', 'feedback_negative'];

/** A JSON Lines export of users, with performance lines when given. */
export function jsonlText(experiment: object, users: SyntheticUser[], performance: object[] = []): string {
  const lines = [JSON.stringify({ type: 'experiment', ...experiment })];
  for (const u of users)
    lines.push(
      JSON.stringify({ type: 'user', user_id: u.user_id, variant: u.variant, ...Object.fromEntries(KEYS.map((k, i) => [k, u.counts[i]])) }),
    );
  for (const p of performance) lines.push(JSON.stringify({ type: 'performance', ...p }));
  return `${lines.join('\n')}\n`;
}

/** Writes text, gzipped when the path ends in .gz. */
export function writeData(path: string, text: string): string {
  writeFileSync(path, path.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}
