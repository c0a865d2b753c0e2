import { type Kysely, sql } from 'kysely';

/**
 * Sign-in: the post-logout redirect URIs a client registers for RP-Initiated Logout (a JSON array,
 * like redirect_uris), and the refresh token each refresh token replaced (`parent_id`), so a second
 * use of a just-rotated token within the reuse window can tell whether the client has already moved
 * on to the token that replaced it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('post_logout_redirect_uris', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('refresh_tokens').addColumn('parent_id', 'varchar(32)').execute();
  await db.schema.createIndex('refresh_tokens_parent').on('refresh_tokens').column('parent_id').where(sql<boolean>`parent_id is not null`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('refresh_tokens_parent').execute();
  await db.schema.alterTable('refresh_tokens').dropColumn('parent_id').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('post_logout_redirect_uris').execute();
}
