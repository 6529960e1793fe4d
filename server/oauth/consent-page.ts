/**
 * The consent page: which app asks for what, for which account, and where the answer goes.
 * Server-rendered, self-contained (no script, no external resource: one inline style allowed
 * by its hash), every value HTML-escaped. Its own headers are stricter than the app's: it may
 * not be framed at all (clickjacking a one-click Approve), and its form may post only to the
 * service, whose answer then redirects to the client (browsers hold that redirect to the
 * page's `form-action` too, so the client's origin is listed there).
 */
import { createHash } from 'node:crypto';
import { serviceScopes } from './oauth-scopes.js';
import type { ConsentPrompt } from './oauth.service.js';

const STYLE = [
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.4}',
  'h1{font-size:1.3rem}',
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}',
  'ul{padding-left:1.2rem}.note{color:#555;font-size:.9rem}',
  'form{display:flex;gap:1rem;margin-top:1.5rem}button{font-size:1rem;padding:.5rem 1.2rem;cursor:pointer}',
  'button[value=approve]{background:#2b5fd9;color:#fff;border:0;border-radius:4px}',
].join('');
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** What the service's own permissions mean to the user, by the service scope a requested scope grants. */
const PERMISSION_WORDS: Record<'read' | 'write', string> = {
  read: 'See your recommendations, interactions, preferences and privacy settings on this service',
  write: 'Record interactions and change your preferences and privacy settings on this service for you',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** The requested scopes in plain words: what they grant here (serviceScopes' mapping; push and profile grant nothing). */
export function describeScopes(scopes: readonly string[]): string[] {
  return serviceScopes(scopes).flatMap((scope) => (scope === 'read' || scope === 'write' ? [PERMISSION_WORDS[scope]] : []));
}

/** Where the answer is sent, as the user should read it: a web origin's host, or an app's URI scheme. */
export function redirectTarget(redirectUri: string): { shown: string; cspSource: string } {
  const url = new URL(redirectUri);
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  // A CSP host source cannot spell every host (IPv6 literals): the scheme alone then.
  if (web && /^[a-z0-9.-]+$/.test(url.hostname)) return { shown: url.host, cspSource: url.origin };
  return { shown: web ? url.host : `the app that opens ${url.protocol} links`, cspSource: url.protocol };
}

/** The page's own security headers, replacing the app-wide framing and CSP ones. */
export function consentPageHeaders(prompt: ConsentPrompt): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'x-frame-options': 'DENY',
    'content-security-policy': [
      "default-src 'none'",
      `style-src ${STYLE_HASH}`,
      `form-action 'self' ${redirectTarget(prompt.redirectUri).cspSource}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
  };
}

/** The page. Its form posts to `consent`, next to the callback that serves it, whatever prefix the service runs under. */
export function renderConsentPage(prompt: ConsentPrompt): string {
  const { client } = prompt;
  const minutes = Math.max(1, Math.round(prompt.expiresInSeconds / 60));
  const website = client.website === null ? '' : `<dt>Website</dt><dd>${escapeHtml(client.website)}</dd>`;
  const permissions = describeScopes(prompt.scopes)
    .map((line) => `<li>${escapeHtml(line)}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Authorize ${escapeHtml(client.name)}?</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Authorize <strong>${escapeHtml(client.name)}</strong> to use your account?</h1>
<dl>
<dt>App</dt><dd>${escapeHtml(client.name)}</dd>
${website}
<dt>Account</dt><dd>${escapeHtml(prompt.account)}</dd>
<dt>Sends you to</dt><dd>${escapeHtml(redirectTarget(prompt.redirectUri).shown)}</dd>
</dl>
<p>It asks to:</p>
<ul>${permissions}</ul>
<p class="note">The app chose its name and website itself: this service has not checked them. Approve only if you started this from the app you expect.</p>
<p class="note">Requested scopes: ${escapeHtml(prompt.scopes.join(' '))}. Answer within ${minutes} minute${minutes === 1 ? '' : 's'}; this page works once.</p>
<form method="post" action="consent">
<input type="hidden" name="ticket" value="${escapeHtml(prompt.ticket)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</body>
</html>
`;
}
