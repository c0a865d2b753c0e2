/*
 * The channels module's writes in message creation's own statements (channel-counters.store.ts): the
 * messages module runs them in its create transaction, on its busiest path, so the channels module
 * hands over its statements and SQL rather than running them behind a call of its own.
 */
export {
  AUTHOR_READ_ROW,
  type AuthorRead,
  authorReadsUpdate,
  type ChannelCounterMove,
  moveChannelCounters,
  prepareSqliteCounterStatements,
  pushAuthorRead,
  takeChannelSegments,
} from './channel-counters.store.js';
