#!/usr/bin/env node
// Writes a deterministic per-user CSV (decisions.md, Offline data) of N users split 50/50
// between control and treatment: node bench/cli/generate-users.js 1000000 out.csv
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const users = Number(process.argv[2] ?? 1_000_000);
const path = process.argv[3] ?? 'users.csv';
let state = 12345;
const next = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
};
const out = createWriteStream(path);
out.write('user_id,variant,impressions,clicks,interactions,sessions,session_seconds,bounces,feedback_positive,feedback_negative\n');
let buffer = '';
for (let i = 0; i < users; i++) {
  const variant = next() < 0.5 ? 'control' : 'treatment';
  const impressions = Math.floor(next() * 40);
  const clicks = Math.floor(impressions * next() * (variant === 'control' ? 0.2 : 0.22));
  const sessions = 1 + Math.floor(next() * 5);
  const seconds = Math.floor(next() * 1800);
  const positive = Math.floor(next() * 4);
  buffer += `user${i},${variant},${impressions},${clicks},${Math.floor(clicks / 2)},${sessions},${seconds},${Math.floor(next() * sessions)},${positive},${Math.floor(next() * 2)}\n`;
  if (buffer.length > 1 << 20) {
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  }
}
out.end(buffer);
await once(out, 'finish');
