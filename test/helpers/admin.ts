import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The admin API as a script would call it: JSON bodies, the admin bearer token. */
export function adminClient(t: TestApp) {
  const call = (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.adminToken}`, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  /** A form-encoded request, as the original documented most admin endpoints (docs/contract.md, Requests). */
  const form = (method: Method, url: string, text: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: text,
    });

  return {
    call,
    form,
    async createUser(userId: string, fields: Record<string, unknown> = {}) {
      const response = await call('PUT', '/api/v2/users', { userId, ...fields });
      if (response.statusCode !== 200) throw new Error(`createUser ${userId}: ${response.statusCode} ${response.body}`);
      return response.json();
    },
    async createChannel(channelId: string, fields: Record<string, unknown> = {}) {
      const response = await call('POST', '/api/v2/channel', { channelId, type: 'standard', ...fields });
      if (response.statusCode !== 200) throw new Error(`createChannel ${channelId}: ${response.statusCode} ${response.body}`);
      return response.json();
    },
  };
}
