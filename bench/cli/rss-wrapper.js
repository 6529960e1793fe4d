#!/usr/bin/env node
// Runs `node <args>` and reports the child's peak RSS on stderr (fallback when GNU time is missing).
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });
child.on('exit', (code) => {
  process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\n`);
  process.exit(code ?? 1);
});
