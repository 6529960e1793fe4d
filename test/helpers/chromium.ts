/**
 * Headless Chromium for the browser tests (Debian's `chromium`; RECSVC_CHROMIUM names another
 * binary, RECSVC_SKIP_BROWSER=1 skips them on a machine without one): the flags every run needs
 * on this machine's closed network, and one run's output.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.RECSVC_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser tests are skipped (RECSVC_SKIP_BROWSER=1). */
export const SKIP_BROWSER = process.env.RECSVC_SKIP_BROWSER === '1';

/** Headless, no sandbox (root), and no connection of the browser's own (it would be refused, many at a time). */
export const HEADLESS_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--no-first-run',
];

/** Fails the suite with how to install Chromium when it is missing. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: install it with "apt-get install -y chromium" (or set RECSVC_SKIP_BROWSER=1 to skip this test)`,
    );
  }
}

/** One Chromium run with `args` (after HEADLESS_FLAGS); its stdout (the DOM with --dump-dom) and stderr (its log). */
export function runChromium(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, [...HEADLESS_FLAGS, ...args], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && !stdout) reject(new Error(`chromium failed: ${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}
