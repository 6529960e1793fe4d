/**
 * The /docs explorer in a real browser: headless Chromium (Debian's `chromium`)
 * loads the page from a listening app under the service's Content-Security-Policy,
 * runs the explorer's scripts and renders the operations of the OpenAPI document.
 * Set RECSVC_SKIP_BROWSER=1 to skip on a machine without Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireChromium, runChromium, SKIP_BROWSER } from '../../helpers/chromium.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const skip = SKIP_BROWSER;

interface BrowserRun {
  dom: string;
  log: string;
}

/** One headless page load; the DOM after the scripts ran, and the browser's log (console messages, CSP reports). */
function dumpDom(url: string, profileDir: string): Promise<BrowserRun> {
  const args = [
    '--disable-component-update',
    '--disable-sync',
    '--enable-logging=stderr',
    '--v=0',
    `--user-data-dir=${profileDir}`,
    '--virtual-time-budget=10000',
    '--dump-dom',
    url,
  ];
  return runChromium(args).then(({ stdout, stderr }) => ({ dom: stdout, log: stderr }));
}

describe.skipIf(skip)('the /docs explorer in headless Chromium', () => {
  let t: TestApp;
  let profileDir: string;
  let run: BrowserRun;

  beforeAll(async () => {
    requireChromium();
    t = await createTestApp();
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    profileDir = mkdtempSync(join(tmpdir(), 'recsvc-chromium-'));
    run = await dumpDom(`${address}/docs`, profileDir);
  }, 90_000);

  afterAll(async () => {
    await t?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it('renders the operations of the document', () => {
    // Swagger UI writes each operation as an opblock carrying its method and path.
    expect(run.dom).toContain('swagger-ui');
    expect(run.dom).toMatch(/class="opblock opblock-get/);
    expect(run.dom).toContain('data-path="/api/v1/recommendations"');
    expect(run.dom).toContain('data-path="/api/v1/analytics/experiments/{id}/analysis"');
    expect(run.dom).toContain('Personalised recommendations');
    // No "Failed to load API definition" or resolver errors panel.
    expect(run.dom).not.toMatch(/Failed to load API definition|Resolver error/i);
  });

  it("is titled recsvc, shows recsvc's wordmark instead of fastify's logo, and says how to get a token", () => {
    expect(run.dom).toContain('<title>recsvc API</title>');
    const logo = /<img[^>]+src="data:image\/svg\+xml;base64,([^"]+)"/.exec(run.dom)?.[1];
    expect(logo, 'the top bar logo').toBeDefined();
    const svg = Buffer.from(logo as string, 'base64').toString('utf8');
    expect(svg).toContain('>recsvc</text>');
    expect(svg).not.toMatch(/fastify/i);
    expect(run.dom).toContain('Getting a token:');
    expect(run.dom).toContain('recsvc token create --scopes read,write --user alice');
  });

  it('runs under the Content-Security-Policy without a violation', () => {
    // Chromium logs each violation as a console message ("… violates the following Content Security Policy directive …").
    const violations = run.log
      .split('\n')
      .filter((line) => /Content Security Policy|Refused to (load|execute|apply|evaluate|connect|frame)/i.test(line));
    expect(violations).toEqual([]);
  });
});
