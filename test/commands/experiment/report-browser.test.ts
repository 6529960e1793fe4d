/**
 * The HTML report of `recsvc experiment report` opened in headless Chromium (Debian's `chromium`),
 * screenshot-free: the DOM after loading holds every chart with its series, the browser logged no
 * console message (no error, no Content-Security-Policy violation), and nothing was requested over
 * the network — every HTTP(S) request of the browser goes to a counting proxy on 127.0.0.1. Two
 * control pages show that both detectors see what they are meant to. Set RECSVC_SKIP_BROWSER=1 to
 * skip on a machine without Chromium.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireChromium, runChromium, SKIP_BROWSER } from '../../helpers/chromium.js';
import { METRIC_NAMES } from '../../../src/experiments/metrics.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { jsonlText, makeUsers, writeData } from '../support/make-data.js';

const skip = SKIP_BROWSER;
/** Chromium's own background traffic (component updates, time, accounts), not the page's. */
const BROWSER_OWN = /(^|\.)(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)(:\d+)?$/;

interface BrowserRun {
  dom: string;
  /** Console messages the page caused (errors, CSP violations, anything logged). */
  console: string[];
  /** Hosts (host:port) the page asked the network for. */
  requested: string[];
}

/** A proxy that answers every request with 404 and records its host. */
function countingProxy(): Promise<{ server: Server; port: number; hosts: string[] }> {
  const hosts: string[] = [];
  const server = createServer((request, response) => {
    hosts.push(new URL(request.url ?? '/', 'http://unknown').host);
    response.writeHead(404).end();
  });
  server.on('connect', (request: { url?: string }, socket: { destroy(): void }) => {
    hosts.push(request.url ?? '');
    socket.destroy();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, hosts })),
  );
}

async function load(file: string, dir: string): Promise<BrowserRun> {
  const proxy = await countingProxy();
  const args = [
    '--disable-component-update',
    '--disable-sync',
    '--enable-logging=stderr',
    '--v=0',
    `--user-data-dir=${join(dir, `profile-${file.replace(/\W/g, '_')}`)}`,
    `--proxy-server=http://127.0.0.1:${proxy.port}`,
    '--proxy-bypass-list=<-loopback>',
    '--virtual-time-budget=5000',
    '--dump-dom',
    `file://${file}`,
  ];
  try {
    const { stdout, stderr } = await runChromium(args);
    return {
      dom: stdout,
      console: stderr.split('\n').filter((line) => /:CONSOLE[:(]/.test(line)),
      requested: proxy.hosts.filter((host) => !BROWSER_OWN.test(host)),
    };
  } finally {
    proxy.server.close();
  }
}

describe.skipIf(skip)('the experiment report in headless Chromium', () => {
  const dir = tempDir('recsvc-report-browser-');
  const report = join(dir, 'report.html');
  let run: BrowserRun;
  let violating: BrowserRun;
  let fetching: BrowserRun;

  beforeAll(async () => {
    requireChromium();
    const experiment = {
      id: 5,
      name: 'ranking "<v3>"',
      confidence_level: 0.95,
      minimum_sample_size: 300,
      analysis_method: 'sequential',
      variants: [
        { name: 'control', traffic_allocation: 34, is_control: true },
        { name: 'recency', traffic_allocation: 33, is_control: false },
        { name: 'semantic', traffic_allocation: 33, is_control: false },
      ],
    };
    const files = [300, 600, 900, 1200].map((users, d) =>
      writeData(
        join(dir, `day${d}.jsonl`),
        jsonlText(
          { ...experiment, exported_at: new Date(Date.UTC(2026, 3, 1 + d)).toISOString() },
          makeUsers([
            { name: 'control', allocation: 34, users, ctr: 0.08, satisfaction: 0.7 },
            { name: 'recency', allocation: 33, users, ctr: 0.09, satisfaction: 0.7 },
            { name: 'semantic', allocation: 33, users, ctr: 0.1, satisfaction: 0.72 },
          ]),
        ),
      ),
    );
    const made = await runCli(['experiment', 'report', ...files.flatMap((f) => ['--file', f]), '-o', report]);
    if (made.code !== 0) throw new Error(`experiment report exited ${made.code}: ${made.stderr}`);
    // Control pages: one breaks its own CSP and logs an error, one (without a CSP) fetches from the network.
    const bad = join(dir, 'violating.html');
    writeFileSync(
      bad,
      `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'"></head><body><script>console.error("control-error")</script><img src="http://example.test/a.png"></body></html>`,
    );
    const open = join(dir, 'fetching.html');
    writeFileSync(open, '<!DOCTYPE html><html><body><img src="http://example.test/b.png"></body></html>');
    [run, violating, fetching] = await Promise.all([load(report, dir), load(bad, dir), load(open, dir)]);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders a chart per metric and the users chart, each with its series and points', () => {
    expect(run.dom.match(/<svg [^>]*class="chart"/g)).toHaveLength(METRIC_NAMES.length + 1);
    for (const metric of METRIC_NAMES) {
      const start = run.dom.indexOf(`data-metric="${metric}"`);
      expect(start, metric).toBeGreaterThan(0);
      const section = run.dom.slice(start, run.dom.indexOf('</section>', start));
      for (const treatment of ['recency', 'semantic']) {
        const group = new RegExp(`<g class="series" data-series="${treatment} − control">(.*?)</g>`).exec(section)?.[1] ?? '';
        expect(group.match(/<circle class="point"/g), `${metric} ${treatment}`).toHaveLength(4);
        expect(group).toContain('<path class="line"');
        expect(group).toContain('<path class="band"');
      }
    }
    const users = run.dom.slice(run.dom.indexOf('<section id="users">'));
    for (const variant of ['control', 'recency', 'semantic'])
      expect(new RegExp(`data-series="${variant}">.*?</g>`).exec(users)?.[0].match(/<circle/g)).toHaveLength(4);
    expect(run.dom).toContain('ranking "&lt;v3&gt;"');
    expect(run.dom).toMatch(/<h2>Gates: <span class="(pass|fail|inconclusive)">/);
  });

  it('logs no console message (no error, no CSP violation); the control page shows both are seen', () => {
    expect(run.console).toEqual([]);
    expect(violating.console.some((line) => line.includes('control-error'))).toBe(true);
    expect(violating.console.some((line) => /Content Security Policy/.test(line))).toBe(true);
  });

  it('requests nothing over the network; the control page without a CSP is seen fetching', () => {
    expect(run.requested).toEqual([]);
    expect(fetching.requested).toContain('example.test');
    // The report's own policy forbids it anyway (the browser read the attribute unescaped).
    expect(run.dom).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[^']+'; img-src 'none'/,
    );
  });
});
