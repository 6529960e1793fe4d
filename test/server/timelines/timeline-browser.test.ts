/**
 * A timeline rendered the way Mastodon web clients render it, in headless Chromium (Debian's
 * `chromium`): a page on another origin fetches the home timeline from the service (CORS,
 * bearer token, X-Social-Instance), sorts it by `created_at` newest first as Phanpy does,
 * and renders each status as a client that knows nothing of recsvc does ("<name> boosted"
 * above the boosted status). The recommendations must be visible (named as recommendations by
 * the boosting account) and where the service wove them in: the sorted order is the order sent.
 * Set RECSVC_SKIP_BROWSER=1 to skip on a machine without Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireChromium, runChromium, SKIP_BROWSER } from '../../helpers/chromium.js';
import { startMastodonInstance, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

const skip = SKIP_BROWSER;

/** The client: fetch, sort by created_at (stable), render; the order as sent is kept aside to compare. */
const CLIENT_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>client</title></head>
<body><ol id="timeline"></ol><ol id="sent"></ol><p id="state">loading</p>
<script>
const params = new URLSearchParams(location.search);
fetch(params.get('api') + '/api/v1/timelines/home?limit=20', {
  headers: { Authorization: 'Bearer ' + params.get('token'), 'X-Social-Instance': params.get('instance') },
})
  .then((response) => response.json())
  .then((statuses) => {
    const item = (status) => {
      const li = document.createElement('li');
      li.dataset.id = status.id;
      const shown = status.reblog || status;
      if (status.reblog) {
        const by = document.createElement('small');
        by.className = 'boosted-by';
        by.textContent = status.account.display_name + ' boosted';
        li.append(by);
      }
      const body = document.createElement('div');
      body.className = 'content';
      body.innerHTML = shown.content;
      li.append(body);
      return li;
    };
    for (const status of statuses) document.getElementById('sent').append(item(status));
    const sorted = [...statuses].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    for (const status of sorted) document.getElementById('timeline').append(item(status));
    document.getElementById('state').textContent = 'rendered ' + statuses.length;
  })
  .catch((error) => { document.getElementById('state').textContent = 'failed: ' + error; });
</script></body></html>`;

function dumpDom(url: string, profileDir: string): Promise<string> {
  const args = [
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profileDir}`,
    '--virtual-time-budget=10000',
    '--dump-dom',
    url,
  ];
  return runChromium(args).then(({ stdout }) => stdout);
}

/** The rendered list's items: each one's id and, for a boost, who boosted it. */
function items(dom: string, listId: string): { id: string; boostedBy: string | undefined }[] {
  const list = new RegExp(`<ol id="${listId}">([\\s\\S]*?)</ol>`).exec(dom)?.[1] ?? '';
  return [...list.matchAll(/<li data-id="([^"]+)">([\s\S]*?)<\/li>/g)].map((match) => ({
    id: match[1]!,
    boostedBy: /<small class="boosted-by">([^<]*) boosted<\/small>/.exec(match[2]!)?.[1],
  }));
}

describe.skipIf(skip)('a timeline rendered by a client that sorts by created_at, in headless Chromium', () => {
  let instance: MastodonTestInstance;
  let h: TimelinesHarness;
  let pageServer: Server;
  let profileDir: string;
  let dom: string;

  beforeAll(async () => {
    requireChromium();
    instance = await startMastodonInstance({ statuses: 80 });
    h = await timelinesHarness({ timelineRecommendations: 'boost' });
    await h.seed(unfollowedStatuses(instance), instance);
    const api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    pageServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(CLIENT_PAGE));
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    const address = pageServer.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const query = new URLSearchParams({ api, token: instance.token, instance: instance.host });
    profileDir = mkdtempSync(join(tmpdir(), 'recsvc-chromium-'));
    dom = await dumpDom(`http://127.0.0.1:${address.port}/?${query.toString()}`, profileDir);
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await instance?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it('shows the recommendations as boosts by an account named for them', () => {
    expect(dom).toMatch(/<p id="state">rendered \d+<\/p>/);
    const shown = items(dom, 'timeline');
    expect(shown.length).toBeGreaterThan(20);
    const recommended = shown.filter((item) => item.boostedBy?.startsWith('Recommended'));
    expect(recommended.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps them where the service wove them in, spread through the page, never first', () => {
    const shown = items(dom, 'timeline');
    const sent = items(dom, 'sent');
    expect(shown.map((item) => item.id)).toEqual(sent.map((item) => item.id));
    const positions = shown.flatMap((item, i) => (item.boostedBy?.startsWith('Recommended') ? [i] : []));
    expect(positions[0]).toBeGreaterThan(0);
    // Spread through the page, not gathered at its end (where their own dates would put them).
    expect(positions[0]).toBeLessThan(shown.length / 2);
  });
});
