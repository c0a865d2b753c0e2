import type { ParleyClient } from '../client.js';
import type { ParleyStream } from '../stream/stream.js';
import { LiveChannels } from './channels.js';
import { LiveMessages, type LiveMessagesOptions } from './messages.js';
import { ReadMarker } from './read-marker.js';
import { LiveTray } from './tray.js';

export { LiveChannels } from './channels.js';
export type { LiveSnapshot } from './live-list.js';
export { LiveMessages, type LiveMessage, type LiveMessagesOptions, type PendingMessage } from './messages.js';
export { ReadMarker } from './read-marker.js';
export { LiveTray } from './tray.js';

/** Live collections of one client, kept current by one stream (open it with `stream.connect()`). */
export function createLive(client: ParleyClient, stream: ParleyStream) {
  return {
    stream,
    channels: (options?: { limit?: number }) => new LiveChannels(client, stream, options),
    messages: (channelId: string, options?: LiveMessagesOptions) => new LiveMessages(client, channelId, stream, options),
    /** The comments of one message. */
    comments: (channelId: string, parentId: string, options?: Omit<LiveMessagesOptions, 'parentId'>) =>
      new LiveMessages(client, channelId, stream, { ...options, parentId }),
    tray: () => new LiveTray(client, stream),
    readMarker: (channelId: string, options?: { onMoved?: (segment: number) => void }) => new ReadMarker(client, channelId, options),
  };
}
