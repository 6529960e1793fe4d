/**
 * The request log keeps no query values (user ids, OAuth codes): the app with start.ts's
 * logger serializer writes its real log lines into a stream read here.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactQuery, serializeRequest } from '../../../server/platform/http/request-log.js';
import { createTestApp } from '../../helpers/test-app.js';

describe('request log', () => {
  it('replaces every query value with *, keeping names and the path', () => {
    expect(redactQuery('/api/v1/interactions?user_id=alice%40x&limit=5')).toBe('/api/v1/interactions?user_id=*&limit=*');
    expect(redactQuery('/api/v1/oauth/authorize?code=abc&state')).toBe('/api/v1/oauth/authorize?code=*&state');
    expect(redactQuery('/api/v1/posts/12')).toBe('/api/v1/posts/12');
  });

  it('writes no user id from a URL into the log lines of a request', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const t = await createTestApp({ logger: { level: 'info', stream, serializers: { req: serializeRequest } } });
    try {
      await t.app.inject({ url: '/api/v1/interactions?user_id=secret-user-4711&limit=3', headers: await t.adminHeaders() });
    } finally {
      await t.close();
    }
    const log = lines.join('');
    expect(log).toContain('/api/v1/interactions?user_id=*&limit=*');
    expect(log).not.toContain('secret-user-4711');
  });
});
