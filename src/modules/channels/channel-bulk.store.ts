import type { Executor } from '../../storage/database.js';
import type { ChannelRow, MemberRow } from './channels.types.js';

/**
 * A whole channel as a bulk load writes it (the demo seed): the row as given, its counters preset by
 * the caller to the members and messages it writes alongside (not open to joining unless it says so),
 * then its tags and its members, one statement each. No events: the channel simply exists.
 */
export async function insertWholeChannel(
  db: Executor,
  channel: Omit<ChannelRow, 'joinable'> & Partial<Pick<ChannelRow, 'joinable'>>,
  tags: readonly string[],
  members: readonly MemberRow[],
): Promise<void> {
  await db
    .insertInto('channels')
    .values({ joinable: 0, ...channel })
    .execute();
  if (tags.length > 0) {
    await db
      .insertInto('channel_tags')
      .values(tags.map((tag) => ({ channel_id: channel.id, tag })))
      .execute();
  }
  if (members.length > 0) {
    await db
      .insertInto('channel_members')
      .values([...members])
      .execute();
  }
}
