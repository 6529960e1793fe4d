/**
 * The HTML report of `recsvc experiment report` on a phone-sized window (390 CSS pixels, an
 * iPhone 12–15's width) in headless Chromium: the page itself never scrolls sideways — wide
 * tables scroll inside their own box, charts shrink. The report runs no script (its CSP forbids
 * it), so the test measures a copy whose CSP meta tag is dropped and whose end carries one
 * measuring script; the copy is shown in a 390-pixel iframe (headless windows are at least 500
 * wide) whose page receives the figures and writes them into its DOM. A page with a wide
 * element (control) shows the measurement sees overflow when there is some. Set
 * RECSVC_SKIP_BROWSER=1 to skip on a machine without Chromium.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireChromium, runChromium, SKIP_BROWSER } from '../../helpers/chromium.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { jsonlText, makeUsers, writeData } from '../support/make-data.js';

const skip = SKIP_BROWSER;
const PHONE_WIDTH = 390;

/** Writes {viewport, scrollWidth, overflowing} into <body data-measure>: elements reaching past the viewport outside a scrolling box. */
const MEASURE = `<script>
const vw = document.documentElement.clientWidth;
const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) { const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return true; } return false; };
const overflowing = [...document.body.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > vw + 0.5 && !scrolls(e)).map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className : ''));
parent.postMessage(JSON.stringify({ viewport: vw, scrollWidth: document.documentElement.scrollWidth, overflowing }), '*');
</script>`;

/** The frame around the measured page: `width` pixels wide, keeping what the page measured. */
const frame = (src: string, width: number): string =>
  `<!DOCTYPE html><html><body style="margin:0"><script>addEventListener('message', (e) => document.body.setAttribute('data-measure', e.data));</script>` +
  `<iframe src="${src}" width="${width}" height="800" style="border:0"></iframe></body></html>`;

interface Measure {
  viewport: number;
  scrollWidth: number;
  overflowing: string[];
}

/** The page measured at `width` CSS pixels wide. */
async function measure(html: string, width: number, dir: string, name: string): Promise<Measure> {
  const page = join(dir, `${name}.html`);
  writeFileSync(page, html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `${MEASURE}</body>`));
  const file = join(dir, `${name}-frame.html`);
  writeFileSync(file, frame(`${name}.html`, width));
  const args = [
    '--hide-scrollbars',
    `--user-data-dir=${join(dir, `profile-${name}`)}`,
    '--window-size=800,900',
    '--virtual-time-budget=5000',
    '--dump-dom',
    `file://${file}`,
  ];
  const dom = await runChromium(args).then(({ stdout }) => stdout);
  const attribute = /data-measure="([^"]*)"/.exec(dom)?.[1];
  if (attribute === undefined) throw new Error(`the measuring script did not run:\n${dom.slice(0, 2000)}`);
  return JSON.parse(attribute.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Measure;
}

describe.skipIf(skip)('the experiment report on a phone', () => {
  const dir = tempDir('recsvc-report-phone-');
  let phone: Measure;
  let control: Measure;

  beforeAll(async () => {
    requireChromium();
    const experiment = {
      id: 12,
      name: 'a rather long experiment name about ranking_with_semantic_similarity_and_recency',
      confidence_level: 0.95,
      minimum_sample_size: 300,
      analysis_method: 'sequential',
      variants: [
        { name: 'control', traffic_allocation: 34, is_control: true },
        { name: 'recency_heavy_treatment', traffic_allocation: 33, is_control: false },
        { name: 'semantic_heavy_treatment', traffic_allocation: 33, is_control: false },
      ],
    };
    const files = [300, 600].map((users, d) =>
      writeData(
        join(dir, `day${d}.jsonl`),
        jsonlText(
          { ...experiment, exported_at: new Date(Date.UTC(2026, 3, 1 + d)).toISOString() },
          makeUsers([
            { name: 'control', allocation: 34, users, ctr: 0.08, satisfaction: 0.7 },
            { name: 'recency_heavy_treatment', allocation: 33, users, ctr: 0.09, satisfaction: 0.7 },
            { name: 'semantic_heavy_treatment', allocation: 33, users, ctr: 0.1, satisfaction: 0.72 },
          ]),
        ),
      ),
    );
    const report = join(dir, 'report.html');
    const made = await runCli(['experiment', 'report', ...files.flatMap((f) => ['--file', f]), '-o', report]);
    if (made.code !== 0) throw new Error(`experiment report exited ${made.code}: ${made.stderr}`);
    const html = readFileSync(report, 'utf8');
    const wide =
      '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"></head><body><div style="width:800px">wide</div></body></html>';
    [phone, control] = await Promise.all([measure(html, PHONE_WIDTH, dir, 'report'), measure(wide, PHONE_WIDTH, dir, 'wide')]);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fits the page to the phone: no sideways scrolling, nothing reaching past the screen but inside its own scroller', () => {
    expect(phone.viewport).toBeLessThanOrEqual(PHONE_WIDTH);
    expect(phone.overflowing).toEqual([]);
    expect(phone.scrollWidth).toBeLessThanOrEqual(phone.viewport);
  });

  it('sees overflow when there is some (control page)', () => {
    expect(control.scrollWidth).toBeGreaterThan(control.viewport);
    expect(control.overflowing).toContain('div');
  });
});
