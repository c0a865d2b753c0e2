import type { Kysely } from 'kysely';

/**
 * The orphan-blob sweep (storage/orphan-blobs.ts) asks "does any message point at this file id?" for
 * every blob on disk: an index keeps that a lookup rather than a scan of every message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_file_id').on('messages').column('file_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_file_id').execute();
}
