#!/usr/bin/env node
// `npm run bench:cli`: cold start, then the million-user offline code in-process and as CLI runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

for (const script of ['./cold-start.js', './in-process-1m.js', './analyze-1m.js']) {
  execFileSync(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...process.argv.slice(2)], { stdio: 'inherit' });
}
