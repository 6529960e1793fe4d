/**
 * A command in a real pseudo-terminal: util-linux `script` runs it with a TTY on
 * stdin/stdout (and stderr, so both arrive together in `output()`); tests wait for
 * text, then type. `script -e` exits with the command's exit code.
 */
import { spawn, spawnSync } from 'node:child_process';

/** Whether `script` (util-linux) is there to give us a pseudo-terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0;

export interface TerminalSession {
  /** Waits until `text` appears after what was already consumed. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Waits for a prompt, then types the keys. */
  answer(prompt: string, keys: string): Promise<void>;
  /** Types keys now (e.g. '\x03' for Ctrl-C). */
  type(keys: string): void;
  output(): string;
  exited: Promise<number | null>;
  /** Whichever comes first: the exit code, or 'prompted' once `text` is on the screen. */
  exitOrPrompt(text: string, timeoutMs?: number): Promise<number | null | 'prompted'>;
  /** Hangs up the terminal (the command gets SIGHUP) if it is still running. */
  close(): void;
}

/** Runs `command` in a terminal (TERM=xterm, NO_COLOR=1 unless `env` says otherwise; undefined unsets). */
export function terminal(command: string, env: Record<string, string | undefined> = {}): TerminalSession {
  const merged: Record<string, string | undefined> = { ...process.env, TERM: 'xterm', NO_COLOR: '1', FORCE_COLOR: undefined, ...env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: merged, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let seen = 0;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    async waitFor(text, timeoutMs = 10_000) {
      const start = Date.now();
      while (!output.slice(seen).includes(text)) {
        if (Date.now() - start > timeoutMs)
          throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${output.slice(seen)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      seen = output.indexOf(text, seen) + text.length;
    },
    async answer(prompt, keys) {
      await this.waitFor(prompt);
      await new Promise((resolve) => setTimeout(resolve, 60));
      child.stdin.write(keys);
    },
    type(keys) {
      child.stdin.write(keys);
    },
    output: () => output,
    exited,
    exitOrPrompt(text, timeoutMs) {
      return Promise.race([exited, this.waitFor(text, timeoutMs).then(() => 'prompted' as const)]);
    },
    close() {
      child.stdin.end();
      if (child.exitCode === null) child.kill();
    },
  };
}
