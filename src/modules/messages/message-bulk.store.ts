import type { Executor, Storage } from '../../storage/database.js';
import type { MessagesTable } from '../../storage/schema.js';

/** A whole messages row as a bulk load writes it (the demo seed), in the channel's main topic. */
export type BulkMessageRow = Omit<MessagesTable, 'topic_id'>;

/**
 * SQLite's fastest way in for a bulk load: one statement prepared on the raw connection, run once per
 * row inside one transaction per call. The caller holds Kysely's connection while it calls the answer
 * (`db.connection().execute(...)`), so no Kysely transaction interleaves.
 */
export function prepareBulkMessageInsert(sqlite: NonNullable<Storage['sqlite']>): (rows: readonly BulkMessageRow[]) => void {
  const insert = sqlite.prepare<[BulkMessageRow]>(
    `insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, children_number, is_deleted, file_id, media,
       flag_count, reactions, reactions_count, edited_at, created_at, updated_at)
     values (@id, @channel_id, @segment, @user_id, @type, @data, @tags, @parent_id, @children_number, @is_deleted, @file_id, @media,
       @flag_count, @reactions, @reactions_count, @edited_at, @created_at, @updated_at)`,
  );
  return sqlite.transaction((rows: readonly BulkMessageRow[]) => {
    for (const row of rows) insert.run(row);
  });
}

/** Rows per INSERT of insertBulkMessages: 18 columns a row stays well under PostgreSQL's 65,535 parameters. */
const BULK_STATEMENT_ROWS = 2000;

/** Bulk rows through the query builder, BULK_STATEMENT_ROWS per statement (PostgreSQL; on SQLite, prepareBulkMessageInsert). */
export async function insertBulkMessages(db: Executor, rows: readonly BulkMessageRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += BULK_STATEMENT_ROWS) {
    await db
      .insertInto('messages')
      .values(rows.slice(start, start + BULK_STATEMENT_ROWS))
      .execute();
  }
}
