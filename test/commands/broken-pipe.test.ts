/**
 * `recsvc ... | head`: the reader closes the pipe before recsvc has written; recsvc must end
 * quietly (exit 0, nothing on stderr), not die on EPIPE with a stack. The reader here is
 * bash's `true`, which exits at once, long before Node has started and written its help.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/** Runs `recsvc args | true` in bash; resolves recsvc's own exit status and stderr. */
function intoClosedPipe(args: string[]): Promise<{ status: number; stderr: string }> {
  const command = `${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')} 2>&3 | true; echo "status=\${PIPESTATUS[0]}"`;
  const child = spawn('bash', ['-c', `exec 3>&2; ${command}`], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve({ status: Number(/status=(\d+)/.exec(stdout)?.[1] ?? -1), stderr })));
}

describe('output into a pipe closed early', () => {
  it.each([[['--help']], [['experiment', '--help']], [['help', 'gates']]])('recsvc %j | head ends quietly with 0', async (args) => {
    const { status, stderr } = await intoClosedPipe(args);
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
