/**
 * A small world on a live server for the fuzzer and the access-control sweep:
 * posts, and for each user interactions, feedback, preferences and events that
 * carry a secret marker (`<user>-secret…`), so a response leaking another user's
 * data can be recognised; plus two experiments, one of them started.
 */
import { readFileSync } from 'node:fs';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { REPO_ROOT } from '../../helpers/cli.js';

export interface World {
  users: string[];
  postIds: string[];
  /** Interaction ids per user. */
  interactionIds: Record<string, string[]>;
  experimentIds: number[];
}

/** A marker stored only in `user`'s data. */
export function secretOf(user: string): string {
  return `${user}-secret`;
}

/** The creation body of test/fixtures/cli/experiment.json, renamed. */
export function experimentBody(name: string): Record<string, unknown> {
  const body = JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/cli/experiment.json`, 'utf8')) as Record<string, unknown>;
  return { ...body, name };
}

async function call(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`seeding ${method} ${path}: ${response.status} ${text}`);
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

/** Seeds posts, per-user data and experiments through the API with an admin token. */
export async function seedWorld(baseUrl: string, adminToken: string, users: string[], postCount = 20): Promise<World> {
  const postIds = Array.from({ length: postCount }, (_, i) => postId(i + 1));
  const statuses = postIds.map((_, i) => makeStatus({ n: i + 1, author: `author${i % 4}`, tags: ['cats', `t${i % 3}`] }));
  await call(baseUrl, adminToken, 'POST', '/api/v1/posts/batch', { statuses });
  const interactionIds: Record<string, string[]> = {};
  for (const [u, user] of users.entries()) {
    interactionIds[user] = [];
    for (const [k, action] of (['favorite', 'bookmark', 'reblog'] as const).entries()) {
      const { json } = await call(baseUrl, adminToken, 'POST', '/api/v1/interactions', {
        user_id: user,
        post_id: postIds[(u * 3 + k) % postIds.length],
        action_type: action,
        context: { source: 'seed', note: secretOf(user) },
      });
      interactionIds[user].push(String(json.data.id));
    }
    await call(baseUrl, adminToken, 'POST', '/api/v1/recommendations/feedback', {
      user_id: user,
      post_id: postIds[(u + 7) % postIds.length],
      feedback: 'more',
    });
    await call(baseUrl, adminToken, 'PUT', '/api/v1/recommendations/preferences', {
      user_id: user,
      favoured_tags: [`${secretOf(user)}-tag`],
    });
    await call(baseUrl, adminToken, 'POST', '/api/v1/analytics/events', {
      events: [
        { type: 'session_start', user_id: user, session_id: `${secretOf(user)}-session` },
        { type: 'session_end', user_id: user, session_id: `${secretOf(user)}-session` },
      ],
    });
  }
  const experimentIds: number[] = [];
  for (const name of ['fuzz draft', 'fuzz running']) {
    const { json } = await call(baseUrl, adminToken, 'POST', '/api/v1/analytics/experiments', experimentBody(name));
    experimentIds.push(Number(json.data.id));
  }
  await call(baseUrl, adminToken, 'POST', `/api/v1/analytics/experiments/${experimentIds[1]}/start`);
  return { users, postIds, interactionIds, experimentIds };
}
