/**
 * Type tests of the SDK, checked by tsc (`npx tsc --noEmit -p .`, and test/sdk/frame-types.test.ts):
 * every `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused. Nothing
 * here runs.
 */
import type { NewMessage, StreamFrame } from '../../packages/client/src/index.js';
import type { AdminNewMessage } from '../../packages/client/src/server.js';

/** `frame.type` narrows `frame.data` to that type's payload. */
export function frameNarrowing(frame: StreamFrame): string[] {
  const seen: string[] = [];
  if (frame.type === 'message.created') {
    const id: string = frame.data.messageId;
    seen.push(id);
    // @ts-expect-error a message record has no userIds
    seen.push(frame.data.userIds.join());
    if (frame.data.type === 'text') {
      const text: string = frame.data.data.text;
      seen.push(text);
      // @ts-expect-error a text message's data has no caption
      seen.push(frame.data.data.caption);
    }
    if (frame.data.type === 'image') seen.push(frame.data.data.caption, frame.data.data.fileId);
    if (frame.data.type === 'file') seen.push(frame.data.data.fileName, String(frame.data.data.size));
  }
  if (frame.type === 'message.deleted') {
    const deleted: true = frame.data.isDeleted;
    // @ts-expect-error a deleted message's data is emptied: no text to read as a string
    const text: string = frame.data.data.text;
    seen.push(String(deleted), String(text));
  }
  if (frame.type === 'member.added' || frame.type === 'member.removed') {
    const ids: string[] = frame.data.userIds;
    const joinable: boolean = frame.data.channel.joinable;
    seen.push(...ids, String(joinable));
  }
  if (frame.type === 'tray.updated') {
    seen.push(frame.data.verb);
    // @ts-expect-error a tray change names no message
    seen.push(frame.data.messageId);
  }
  // @ts-expect-error not narrowed: not every frame's data has messageId
  seen.push(frame.data.messageId);
  // @ts-expect-error no frame has this type
  if (frame.type === 'message.typo') seen.push('never');
  return seen;
}

/** `data` is typed by the message's `type`. */
export const sends: NewMessage[] = [
  { type: 'text', data: { text: 'x' } },
  { type: 'custom', data: { kind: 'poll', options: ['yes', 'no'] } },
  { type: 'text', data: { text: 'x' }, tags: ['a'], parentId: 'p' },
  // @ts-expect-error a misspelt field of a text message
  { type: 'text', data: { txet: 'x' } },
  // @ts-expect-error a text message's text is a string
  { type: 'text', data: { text: 42 } },
  // @ts-expect-error a text message needs its text
  { type: 'text', data: {} },
  // @ts-expect-error images go through sendImage
  { type: 'image', data: { caption: 'x', fileId: 'f' } },
];

export const adminSends: AdminNewMessage[] = [
  { channelId: 'general', type: 'text', data: { text: 'x' } },
  // @ts-expect-error the admin API types its messages the same way
  { channelId: 'general', type: 'text', data: { txet: 'x' } },
];
