import type { Message, NewMessage } from './types.js';

/** The text of a text message, stored or to send; null for another type and for a deleted message. */
export function textOf(message: Message | NewMessage): string | null {
  if (message.type !== 'text') return null;
  return message.data.text ?? null;
}
