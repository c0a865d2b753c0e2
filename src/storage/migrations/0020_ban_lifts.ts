import { type Kysely, sql } from 'kysely';

/**
 * Timed bans (modules/bans): `ban_lifts` holds when each ban set for a number of minutes is lifted,
 * whoever set it (an admin route, the client API's moderators, a review of the moderation queue).
 * One row per user and channel, or per user for a global ban (`channel_id` null): the two partial
 * unique indexes say so, since a plain unique index would count every null as distinct. `created_at`
 * is when the timed ban was set: a channel ban row updated later was set again by other means and is
 * not this lift's to end. `ban_lifts_due` finds the lifts due, oldest first.
 *
 * The reviews' pending lifts (`moderation_reviews.lift_at`, one per user and channel or global, as
 * each review replaced the earlier one) move here, the latest per target, and the column goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ban_lifts')
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('channel_id', 'varchar(64)')
    .addColumn('lift_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('ban_lifts_channel')
    .on('ban_lifts')
    .columns(['user_id', 'channel_id'])
    .unique()
    .where(sql<boolean>`channel_id is not null`)
    .execute();
  await db.schema.createIndex('ban_lifts_global').on('ban_lifts').column('user_id').unique().where(sql<boolean>`channel_id is null`).execute();
  await db.schema.createIndex('ban_lifts_due').on('ban_lifts').columns(['lift_at', 'user_id']).execute();
  await sql`
    insert into ban_lifts (user_id, channel_id, lift_at, created_at)
    select p.user_id, p.channel_id, max(p.lift_at), max(p.created_at) from (
      select case when r.target_type = 'user' then r.target_id else r.message_user_id end as user_id,
        case when r.author_action = 'ban' then r.channel_id end as channel_id,
        r.lift_at, r.created_at
      from moderation_reviews r
      where r.lift_at is not null and r.author_action in ('ban', 'globalBan')
    ) p
    where p.user_id is not null
    group by p.user_id, p.channel_id`.execute(db);
  await db.schema.dropIndex('moderation_reviews_lift').execute();
  await db.schema.alterTable('moderation_reviews').dropColumn('lift_at').execute();
}

/**
 * The column comes back empty and the lifts go: bans timed then last until lifted by hand, the safe
 * side (a lift an admin route set has no review to return to).
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('moderation_reviews').addColumn('lift_at', 'bigint').execute();
  await db.schema.createIndex('moderation_reviews_lift').on('moderation_reviews').column('lift_at').where(sql<boolean>`lift_at is not null`).execute();
  await db.schema.dropTable('ban_lifts').execute();
}
