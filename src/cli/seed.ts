import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { insertWholeChannel } from '../modules/channels/channel-bulk.store.js';
import { hashPassword } from '../modules/identity/passwords.js';
import { type BulkMessageRow, insertBulkMessages, prepareBulkMessageInsert } from '../modules/messages/message-bulk.store.js';
import { insertUserRows } from '../modules/users/users.service.js';
import { addMessageHistory } from '../modules/stats/daily-stats.js';
import type { UserRow } from '../modules/users/users.types.js';
import type { Storage } from '../storage/database.js';
import { newObjectId } from '../storage/ids.js';
import { migrateToLatest } from '../storage/migrate.js';
import { runTransaction } from '../storage/transactions.js';

/**
 * `parley seed --demo`: realistic data for trying Parley: users with names, channels with members,
 * and conversations with comments. Rows are written in large transactions through the owners' bulk
 * inserts (users, channels with their tags and members, messages: the same shapes the services
 * write), so a million messages take seconds, not hours. Seeding writes no outbox events: nothing is
 * "happening", the history simply exists.
 */
export interface SeedOptions {
  users: number;
  channels: number;
  messages: number;
  /** Called as rows are written, to draw progress. */
  onProgress?: (done: number, total: number) => void;
  /** Tells this run's rows apart from earlier runs' (see demoUserId); default: made from the time. */
  runTag?: string;
  /** The password every demo user of this run signs in with; without it they have none. */
  password?: string;
}

/** A tag for one seeding run: six hex digits of a fresh object id. */
export function newRunTag(): string {
  return newObjectId(Date.now()).slice(-6);
}

/** The id, which is also the username, of the `index`-th demo user of a run. */
export function demoUserId(runTag: string, index: number): string {
  return `demo-${runTag}-u${index}`;
}

const FIRST = [
  'Ada',
  'Bea',
  'Cyril',
  'Dana',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivo',
  'Jun',
  'Kai',
  'Lea',
  'Milo',
  'Nia',
  'Omar',
  'Pia',
  'Quin',
  'Rosa',
  'Sami',
  'Tove',
];
const LAST = [
  'Andersen',
  'Berg',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Horvat',
  'Ito',
  'Jensen',
  'Kowalski',
  'Larsen',
  'Moreau',
  'Novak',
  'Okafor',
];
const TOPICS = ['launch', 'design', 'support', 'random', 'hiring', 'ops', 'sales', 'infra', 'mobile', 'docs'];
const WORDS =
  'the release is ready for review can someone check the numbers before lunch I think we should ship it today looks good to me thanks for the quick fix'.split(
    ' ',
  );

function sentence(): string {
  const length = 4 + randomInt(14);
  const words = Array.from({ length }, () => WORDS[randomInt(WORDS.length)] as string);
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

const BATCH = 5000;

/**
 * Rows written so far, out of the total. A transaction PostgreSQL rolls back and runTransaction runs
 * again counts from where it began: `rewindTo` sets the count back to what it was then.
 */
interface SeedProgress {
  done: () => number;
  rewindTo: (done: number) => void;
  advance: (count: number) => void;
}

function createSeedProgress(options: SeedOptions, total: number): SeedProgress {
  let done = 0;
  return {
    done: () => done,
    rewindTo: (value) => {
      done = value;
    },
    advance: (count) => {
      done += count;
      options.onProgress?.(done, total);
    },
  };
}

export async function seedDemo(storage: Storage, options: SeedOptions): Promise<{ users: number; channels: number; messages: number }> {
  const { db } = storage;
  await migrateToLatest(db);
  const now = Date.now();
  const runTag = options.runTag ?? newRunTag();
  const userIds = Array.from({ length: options.users }, (_, i) => demoUserId(runTag, i));
  // One hash for the whole run: scrypt per user would make a million users take hours.
  const passwordHash = options.password === undefined ? null : await hashPassword(options.password);
  const channelIds = Array.from({ length: options.channels }, (_, i) => `demo-${runTag}-${TOPICS[i % TOPICS.length]}-${i}`);
  const total = options.users + options.channels + options.messages;
  const progress = createSeedProgress(options, total);

  await insertDemoUsers(db, userIds, passwordHash, now, progress);

  // Each channel gets up to 20 members; messages are spread evenly and written by its members.
  const membersOf = new Map<string, string[]>();
  const perChannel = Math.floor(options.messages / Math.max(1, channelIds.length));
  const extra = options.messages - perChannel * channelIds.length;
  await insertDemoChannels(db, channelIds, userIds, membersOf, perChannel, extra, now, progress);

  await writeMessages(storage, channelIds, membersOf, perChannel, extra, now, progress.advance);
  // The daily statistics count this history as the outbox consumer counts messages sent (modules/stats).
  await addMessageHistory(db, messageRows(channelIds, membersOf, perChannel, extra, now));
  if (storage.dialect === 'postgres') await sql`analyze`.execute(db);
  return { users: userIds.length, channels: channelIds.length, messages: options.messages };
}

async function insertDemoUsers(db: Storage['db'], userIds: string[], passwordHash: string | null, now: number, progress: SeedProgress): Promise<void> {
  const beforeUsers = progress.done();
  await runTransaction(db, async (trx) => {
    progress.rewindTo(beforeUsers);
    for (let start = 0; start < userIds.length; start += 1000) {
      const chunk = userIds.slice(start, start + 1000);
      await insertUserRows(
        trx,
        chunk.map((id, i): UserRow => {
          const first = FIRST[(start + i) % FIRST.length] as string;
          const last = LAST[(start + i) % LAST.length] as string;
          return {
            id,
            kind: 'user',
            display_name: `${first} ${last}`,
            roles: '[]',
            metadata: '{}',
            flag_count: 0,
            is_global_ban: 0,
            username: id,
            password_hash: passwordHash,
            firstname: first,
            lastname: last,
            email: `${id}@example.com`,
            position: null,
            status: null,
            extras: '{}',
            avatar: null,
            created_at: now,
            updated_at: now,
          };
        }),
      );
      progress.advance(chunk.length);
    }
  });
}

async function insertDemoChannels(
  db: Storage['db'],
  channelIds: string[],
  userIds: string[],
  membersOf: Map<string, string[]>,
  perChannel: number,
  extra: number,
  now: number,
  progress: SeedProgress,
): Promise<void> {
  const beforeChannels = progress.done();
  await runTransaction(db, async (trx) => {
    progress.rewindTo(beforeChannels);
    for (const [index, channelId] of channelIds.entries()) {
      const count = Math.min(userIds.length, 20);
      const offset = randomInt(Math.max(1, userIds.length));
      const members = Array.from({ length: count }, (_, i) => userIds[(offset + i) % userIds.length] as string);
      membersOf.set(channelId, members);
      const messages = perChannel + (index < extra ? 1 : 0);
      await insertWholeChannel(
        trx,
        {
          id: channelId,
          type: 'standard',
          display_name: `#${TOPICS[index % TOPICS.length]} ${index}`,
          metadata: '{}',
          tags: JSON.stringify(['demo']),
          is_closed: 0,
          mute_until: null,
          member_count: members.length,
          message_count: messages,
          last_segment: messages,
          last_activity: now,
          created_at: now,
          updated_at: now,
        },
        ['demo'],
        members.map((userId) => ({
          channel_id: channelId,
          user_id: userId,
          membership: 'member',
          roles: '[]',
          mute_until: null,
          read_to_segment: 0,
          last_activity: now,
          created_at: now,
          updated_at: now,
        })),
      );
      progress.advance(1);
    }
  });
}

/** Messages in segment order per channel; every tenth one is a comment on the one before it. */
async function* messageRows(
  channelIds: string[],
  membersOf: Map<string, string[]>,
  perChannel: number,
  extra: number,
  now: number,
): AsyncGenerator<BulkMessageRow> {
  for (const [index, channelId] of channelIds.entries()) {
    const members = membersOf.get(channelId) ?? [];
    const count = perChannel + (index < extra ? 1 : 0);
    let lastTopLevel: string | null = null;
    const start = now - count * 1000;
    for (let segment = 1; segment <= count; segment++) {
      const createdAt = start + segment * 1000;
      const id = newObjectId(createdAt);
      const isComment = lastTopLevel !== null && segment % 10 === 0;
      // The next row comments on this one when its segment is a multiple of ten.
      const getsComment = !isComment && (segment + 1) % 10 === 0 && segment + 1 <= count;
      yield {
        id,
        channel_id: channelId,
        segment,
        user_id: members.length > 0 ? (members[segment % members.length] as string) : 'admin-env',
        type: 'text',
        data: JSON.stringify({ text: sentence() }),
        tags: '[]',
        parent_id: isComment ? lastTopLevel : null,
        children_number: getsComment ? 1 : 0,
        is_deleted: 0,
        file_id: null,
        media: null,
        flag_count: 0,
        reactions: '{}',
        reactions_count: 0,
        edited_at: null,
        created_at: createdAt,
        updated_at: createdAt,
      };
      if (!isComment) lastTopLevel = id;
    }
  }
}

async function writeMessages(
  storage: Storage,
  channelIds: string[],
  membersOf: Map<string, string[]>,
  perChannel: number,
  extra: number,
  now: number,
  progress: (count: number) => void,
): Promise<void> {
  const rows = messageRows(channelIds, membersOf, perChannel, extra, now);
  const sqlite = storage.sqlite;
  if (sqlite) {
    // One prepared statement in large transactions: SQLite's fastest way in, while holding the
    // connection so no Kysely transaction interleaves.
    const insertMany = prepareBulkMessageInsert(sqlite);
    await storage.db.connection().execute(async () => {
      let batch: BulkMessageRow[] = [];
      for await (const row of rows) {
        batch.push(row);
        if (batch.length === BATCH * 10) {
          insertMany(batch);
          progress(batch.length);
          batch = [];
        }
      }
      if (batch.length > 0) {
        insertMany(batch);
        progress(batch.length);
      }
    });
  } else {
    let batch: BulkMessageRow[] = [];
    const flush = async () => {
      await insertBulkMessages(storage.db, batch);
      progress(batch.length);
      batch = [];
    };
    for await (const row of rows) {
      batch.push(row);
      if (batch.length === BATCH * 4) await flush();
    }
    if (batch.length > 0) await flush();
  }
}
