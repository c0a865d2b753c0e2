import { api, call } from '../../api/client.js';
import type { AdminMessage, AdminUser, MessagesQuery } from '../../api/types.js';

/** How many messages of context are shown on each side of a flagged one. */
const AROUND = 3;

export interface ThreadContext {
  before: AdminMessage[];
  after: AdminMessage[];
  /** The message commented on, when the flagged message is a comment. */
  parent: AdminMessage | null;
  /** Comments of the flagged message (top-level) or its siblings (a comment), first ones. */
  comments: AdminMessage[];
  authors: Map<string, AdminUser>;
}

async function query(body: MessagesQuery) {
  return call(api.POST('/api/v2/messages', { body }));
}

/**
 * The thread around a message, read with the admin message routes: the messages just before and after
 * it on the same level (top-level messages, or the comments of the same parent), its parent when it is
 * a comment, and the first comments of a top-level message.
 */
export async function loadThreadContext(message: AdminMessage): Promise<ThreadContext> {
  const level: Pick<MessagesQuery, 'parentId' | 'filterByParentId'> = message.parentId ? { parentId: message.parentId } : { filterByParentId: true };
  const segment = message.channelSegment;
  const [before, after, parent, comments] = await Promise.all([
    query({ channelId: message.channelId, ...level, options: { before: segment, last: AROUND } }),
    query({ channelId: message.channelId, ...level, options: { after: segment, first: AROUND } }),
    message.parentId ? call(api.GET('/api/v2/message/{messageId}', { params: { path: { messageId: message.parentId } } })) : Promise.resolve(null),
    !message.parentId && message.childrenNumber > 0
      ? query({ channelId: message.channelId, parentId: message.messageId, options: { first: AROUND } })
      : Promise.resolve(null),
  ]);
  const authors = new Map<string, AdminUser>();
  for (const user of [...before.data.users, ...after.data.users, ...(comments?.data.users ?? [])]) authors.set(user.userId, user);
  if (parent?.user) authors.set(parent.user.userId, parent.user);
  const notSelf = (item: AdminMessage) => item.messageId !== message.messageId;
  return {
    before: before.data.messages.filter(notSelf),
    after: after.data.messages.filter(notSelf),
    parent: parent?.message ?? null,
    comments: comments?.data.messages ?? [],
    authors,
  };
}
