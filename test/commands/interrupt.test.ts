/**
 * Ctrl-C ends a command with exit 130 and one line, never a signal death or a stack
 * (the prompt's Ctrl-C is in interactive-create.test.ts; `serve` stops gracefully
 * with 0, in serve.test.ts).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

describe('SIGINT', () => {
  it('exits 130 from `bucket -` waiting on a stdin that never closes', async () => {
    const child = spawn(process.execPath, [BIN, 'bucket', '-', '--experiment', '7', '--allocations', 'a=50,b=50'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (code, signal) => resolve([code, signal])),
    );
    // Output is flushed every 64 KB: once some arrives, the command is running (its handler installed).
    const running = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.resume();
    child.stdin.write(Array.from({ length: 10_000 }, (_, i) => `user-${i}\n`).join(''));
    await running;
    child.kill('SIGINT');
    expect(await exited).toEqual([130, null]);
    expect(stderr).toBe('recsvc: interrupted\n');
  });
});
