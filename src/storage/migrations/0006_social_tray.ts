import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * Communities (membership kept as intervals), posts, comments and post reactions; and the
 * notification tray built from them (see docs/decisions.md, "Notification tray").
 *
 * Tray records are stored once per owner, verb, target and 10-day window. The owner of a community
 * post record is the community ('c:<id>'), not each member: a member's history merges those records
 * at read time, clipped by the member's intervals. Comment and like records belong to the post's
 * owner ('u:<id>').
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await createCommunitiesTable(db);
  await createCommunityMembersTable(db);
  await createPostsTable(db);
  await createCommentsTable(db);
  await createPostReactionsTable(db);
  await createActivityClock(db);
  await createTrayRecordsTable(db, postgres);
  await createTrayActorsTable(db);
  await createTrayContributionsTable(db);
  await createTrayReadsTable(db);
  await createTrayStateTable(db);
}

async function createCommunitiesTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('communities')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('display_name', 'text', (col) => col.notNull())
    .addColumn('created_by', 'varchar(64)', (col) => col.notNull())
    .addColumn('member_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
}

async function createCommunityMembersTable(db: Kysely<unknown>): Promise<void> {
  // One row per stint: joined_at..left_at (null while a member). Times come from the activity clock.
  await db.schema
    .createTable('community_members')
    .addColumn('community_id', 'varchar(64)', (col) => col.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('joined_at', 'bigint', (col) => col.notNull())
    .addColumn('left_at', 'bigint')
    .addPrimaryKeyConstraint('community_members_pk', ['community_id', 'user_id', 'joined_at'])
    .execute();
  // At most one open stint per member; also the "is a member now" lookup.
  await db.schema
    .createIndex('community_members_open')
    .unique()
    .on('community_members')
    .columns(['community_id', 'user_id'])
    .where(sql<boolean>`left_at is null`)
    .execute();
  await db.schema.createIndex('community_members_user').on('community_members').columns(['user_id', 'community_id']).execute();
}

async function createPostsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('posts')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('community_id', 'varchar(64)')
    .addColumn('author_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('comments_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('reactions', 'text', (col) => col.notNull())
    .addColumn('is_deleted', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('posts_community').on('posts').columns(['community_id', 'created_at']).execute();
  await db.schema.createIndex('posts_author').on('posts').columns(['author_id', 'created_at']).execute();
}

async function createCommentsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('post_id', 'varchar(32)', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('author_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('parent_id', 'varchar(32)')
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('is_deleted', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('comments_post').on('comments').columns(['post_id', 'created_at']).execute();
}

async function createPostReactionsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('post_reactions')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('post_id', 'varchar(32)', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('reaction_name', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('post_reactions_unique').unique().on('post_reactions').columns(['post_id', 'user_id', 'reaction_name']).execute();
}

async function createActivityClock(db: Kysely<unknown>): Promise<void> {
  // The activity clock: every social write takes max(now, last + 1), so activity times are unique.
  await db.schema
    .createTable('activity_clock')
    .addColumn('name', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('last_ms', 'bigint', (col) => col.notNull())
    .execute();
  await sql`insert into activity_clock (name, last_ms) values ('social', 0)`.execute(db);
}

async function createTrayRecordsTable(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  const records = db.schema.createTable('tray_records');
  await (postgres
    ? records.addColumn('id', 'bigserial', (col) => col.primaryKey())
    : records.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement())
  )
    .addColumn('owner_key', 'varchar(80)', (col) => col.notNull())
    .addColumn('verb', 'varchar(16)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('window_start', 'bigint', (col) => col.notNull())
    .addColumn('last_update', 'bigint', (col) => col.notNull())
    .addColumn('prev_update', 'bigint')
    .addColumn('top_actor_id', 'varchar(64)')
    .addColumn('community_id', 'varchar(64)')
    .addColumn('community_name', 'text')
    .addColumn('actors_count', 'integer', (col) => col.notNull())
    .addColumn('actors', 'text', (col) => col.notNull())
    .addColumn('image_avatar_id', 'varchar(64)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('tray_records_window').unique().on('tray_records').columns(['owner_key', 'verb', 'target_id', 'window_start']).execute();
  await db.schema.createIndex('tray_records_owner').on('tray_records').columns(['owner_key', 'last_update']).execute();
  await db.schema.createIndex('tray_records_expiry').on('tray_records').column('last_update').execute();
}

async function createTrayActorsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tray_actors')
    .addColumn('record_id', 'bigint', (col) => col.notNull())
    .addColumn('actor_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('last_at', 'bigint', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('avatar_id', 'varchar(64)')
    .addPrimaryKeyConstraint('tray_actors_pk', ['record_id', 'actor_id'])
    .execute();
  await db.schema.createIndex('tray_actors_latest').on('tray_actors').columns(['record_id', 'last_at']).execute();
}

async function createTrayContributionsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tray_contributions')
    .addColumn('source_key', 'varchar(80)', (col) => col.primaryKey())
    .addColumn('record_id', 'bigint', (col) => col.notNull())
    .addColumn('actor_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('avatar_id', 'varchar(64)')
    .execute();
  await db.schema.createIndex('tray_contributions_record').on('tray_contributions').columns(['record_id', 'actor_id', 'at']).execute();
  await db.schema.createIndex('tray_contributions_time').on('tray_contributions').columns(['record_id', 'at']).execute();
}

async function createTrayReadsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tray_reads')
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('record_id', 'bigint', (col) => col.notNull())
    .addColumn('read_upto', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('tray_reads_pk', ['user_id', 'record_id'])
    .execute();
  await db.schema.createIndex('tray_reads_record').on('tray_reads').column('record_id').execute();
}

async function createTrayStateTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tray_state')
    .addColumn('user_id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('last_read_at', 'bigint', (col) => col.notNull())
    .execute();
}
