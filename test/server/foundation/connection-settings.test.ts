/** RECSVC_MAX_CONNECTIONS_PER_CLIENT: an eighth of RECSVC_MAX_CONNECTIONS unless set, never above it. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig } from '../../../server/config.js';

describe('per-client connection setting', () => {
  it('defaults to an eighth of the server limit (at least 1) and can be set', () => {
    expect(loadServerConfig({}, {}).http.maxConnectionsPerClient).toBe(1024);
    expect(loadServerConfig({}, { RECSVC_MAX_CONNECTIONS: '100' }).http.maxConnectionsPerClient).toBe(12);
    expect(loadServerConfig({}, { RECSVC_MAX_CONNECTIONS: '3' }).http.maxConnectionsPerClient).toBe(1);
    expect(loadServerConfig({}, { RECSVC_MAX_CONNECTIONS_PER_CLIENT: '50' }).http.maxConnectionsPerClient).toBe(50);
  });

  it('refuses a per-client cap above the server limit, or below 1', () => {
    expect(() => loadServerConfig({}, { RECSVC_MAX_CONNECTIONS: '10', RECSVC_MAX_CONNECTIONS_PER_CLIENT: '11' })).toThrow(ConfigError);
    expect(() => loadServerConfig({}, { RECSVC_MAX_CONNECTIONS_PER_CLIENT: '0' })).toThrow(/RECSVC_MAX_CONNECTIONS_PER_CLIENT must be/);
  });
});
