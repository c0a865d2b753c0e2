import type { LoadOptions, RunningServer } from '../lib.js';

/** The requests the message benches send, shared by the suite's own table and its comparison with a ref. */

export const TEXT_BODY = (channelId: string) =>
  JSON.stringify({ channelId, type: 'text', data: { text: 'Hello from the bench, a message of ordinary length.' } });

export function adminHeaders(server: RunningServer): Record<string, string> {
  return { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' };
}

export async function createChannel(server: RunningServer, channelId: string): Promise<void> {
  const response = await fetch(`${server.url}/api/v2/channel`, {
    method: 'POST',
    headers: adminHeaders(server),
    body: JSON.stringify({ channelId, type: 'standard' }),
  });
  if (!response.ok) throw new Error(`channel ${channelId}: ${response.status} ${await response.text()}`);
}

/** Admin message create: POST /api/v2/message, one text message. */
export function createLoad(server: RunningServer, channelId: string): LoadOptions {
  return { url: `${server.url}/api/v2/message`, method: 'POST', headers: adminHeaders(server), body: TEXT_BODY(channelId) };
}

/** Message page read: POST /api/v2/messages with paging options (e.g. `{ last: 50 }`: the newest 50). */
export function pageLoad(server: RunningServer, channelId: string, options: Record<string, number>): LoadOptions {
  return { url: `${server.url}/api/v2/messages`, method: 'POST', headers: adminHeaders(server), body: JSON.stringify({ channelId, options }) };
}
