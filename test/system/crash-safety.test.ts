import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { blobKeysOf, parseMedia } from '../../src/modules/messages/messages.present.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { testDatabases } from '../helpers/test-app.js';
import { killServerProcess as kill, type ServerProcess as Server, startServerProcess } from '../helpers/server-process.js';

/**
 * Crash safety: a write load runs against a real server process, which is killed with SIGKILL at a
 * random moment and started again on the same data. Every request that got a 2xx must be there,
 * nothing may be half-written, and every outbox consumer must catch up.
 */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 2);
const adminToken = randomBytes(32).toString('hex');

/** This file's server: the admin token. */
function startServer(env: Record<string, string>): Promise<Server> {
  return startServerProcess({ PARLEY_ADMIN_TOKEN: adminToken, ...env });
}

async function call(url: string, method: string, body?: unknown, token = adminToken): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // binary or empty
  }
  return { status: response.status, json };
}

interface Acknowledged {
  messages: Set<string>;
  comments: Map<string, string>;
  /** `messageId userId reactionName` of reactions added with a 200 (none is removed by the load). */
  reactions: Set<string>;
  /** postId -> author of posts created with a 200. */
  posts: Map<string, string>;
  /** `postId userId` of likes added with a 200. */
  likes: Set<string>;
}

/** End users of the load, members of every channel and of the community. */
interface Person {
  userId: string;
  token: string;
}

/** Concurrent writers until the server dies under them. */
async function runLoad(
  base: string,
  channels: string[],
  people: Person[],
  communityId: string,
  png: Buffer,
  acknowledged: Acknowledged,
  stop: { dead: boolean },
): Promise<void> {
  const worker = async () => {
    while (!stop.dead) {
      const channelId = channels[randomInt(channels.length)] as string;
      const roll = randomInt(100);
      try {
        const person = people[randomInt(people.length)] as Person;
        if (roll < 15) {
          const targets = [...acknowledged.messages];
          const messageId = targets[randomInt(Math.max(1, targets.length))];
          if (!messageId) continue;
          const reactionName = ['like', 'love', 'wow'][randomInt(3)] as string;
          const response = await call(`${base}/client/v1/messages/${messageId}/reactions`, 'POST', { reactionName }, person.token);
          if (response.status === 200) acknowledged.reactions.add(`${messageId} ${person.userId} ${reactionName}`);
          continue;
        }
        if (roll < 25) {
          const response = await call(`${base}/client/v1/posts`, 'POST', { communityId, text: `post ${randomInt(1e9)}` }, person.token);
          const postId = (response.json as { postId?: string }).postId;
          if (response.status === 200 && postId) acknowledged.posts.set(postId, person.userId);
          continue;
        }
        if (roll < 35) {
          const posts = [...acknowledged.posts.keys()];
          const postId = posts[randomInt(Math.max(1, posts.length))];
          if (!postId) continue;
          const response = await call(`${base}/client/v1/posts/${postId}/reactions`, 'POST', { reactionName: 'like' }, person.token);
          if (response.status === 200) acknowledged.likes.add(`${postId} ${person.userId}`);
          continue;
        }
        if (roll < 75) {
          const response = await call(`${base}/api/v2/message`, 'POST', { channelId, type: 'text', data: { text: `hello ${randomInt(1e9)}` } });
          if (response.status === 200) {
            const message = (response.json.data as { messages: { messageId: string }[] }).messages[0];
            if (message) acknowledged.messages.add(message.messageId);
          }
        } else if (roll < 85) {
          const parents = [...acknowledged.messages];
          const parentId = parents[randomInt(Math.max(1, parents.length))];
          if (!parentId) continue;
          const parent = await call(`${base}/api/v2/message/${parentId}`, 'GET');
          const parentChannel = (parent.json.message as { channelId?: string } | undefined)?.channelId;
          if (!parentChannel) continue;
          const response = await call(`${base}/api/v2/message`, 'POST', { channelId: parentChannel, type: 'text', data: { text: 'a comment' }, parentId });
          if (response.status === 200) {
            const message = (response.json.data as { messages: { messageId: string }[] }).messages[0];
            if (message) {
              acknowledged.messages.add(message.messageId);
              acknowledged.comments.set(message.messageId, parentId);
            }
          }
        } else {
          const form = new FormData();
          form.set('channelId', channelId);
          form.set('caption', 'a picture');
          form.set('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'pixel.png');
          const response = await call(`${base}/api/v2/messages/images`, 'POST', form);
          if (response.status === 200) {
            const message = (response.json.data as { messages: { messageId: string }[] }).messages[0];
            if (message) acknowledged.messages.add(message.messageId);
          }
        }
      } catch {
        // The connection died with the server: that request was not acknowledged.
        if (stop.dead) return;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

async function checkInvariants(storage: Storage, dataDir: string, acknowledged: Acknowledged): Promise<string[]> {
  const problems: string[] = [];
  const { db } = storage;
  const rows = await db.selectFrom('messages').select(['id', 'channel_id', 'segment', 'parent_id', 'children_number', 'is_deleted', 'media']).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of acknowledged.messages) if (!byId.has(id)) problems.push(`acknowledged message ${id} is missing`);
  const channels = await db.selectFrom('channels').selectAll().execute();
  for (const channel of channels) {
    const segments = rows
      .filter((row) => row.channel_id === channel.id)
      .map((row) => row.segment)
      .sort((a, b) => a - b);
    const expected = Array.from({ length: channel.last_segment }, (_, i) => i + 1);
    if (JSON.stringify(segments) !== JSON.stringify(expected))
      problems.push(`channel ${channel.id}: segments ${segments.length} rows, last_segment ${channel.last_segment}`);
    if (channel.message_count !== segments.length) problems.push(`channel ${channel.id}: messageCount ${channel.message_count} but ${segments.length} rows`);
    const members = await db.selectFrom('channel_members').select('user_id').where('channel_id', '=', channel.id).where('membership', '=', 'member').execute();
    if (members.length !== channel.member_count) problems.push(`channel ${channel.id}: memberCount ${channel.member_count} but ${members.length} members`);
  }
  for (const row of rows) {
    const children = rows.filter((other) => other.parent_id === row.id && other.is_deleted === 0).length;
    if (children !== row.children_number) problems.push(`message ${row.id}: childrenNumber ${row.children_number} but ${children} comments`);
  }
  // Every blob on disk belongs to a message row.
  const referenced = new Set<string>();
  for (const row of rows) {
    const media = parseMedia(row.media);
    if (media) for (const key of blobKeysOf(media)) referenced.add(key);
  }
  const blobRoot = path.join(dataDir, 'blobs');
  const onDisk = fs.existsSync(blobRoot) ? fs.readdirSync(blobRoot).flatMap((shard) => fs.readdirSync(path.join(blobRoot, shard))) : [];
  const orphans = onDisk.filter((key) => !referenced.has(key));
  if (orphans.length > 0) problems.push(`${orphans.length} orphan blobs, e.g. ${orphans[0]}`);
  const latest = Number(
    (
      await db
        .selectFrom('outbox')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirst()
    )?.max ?? 0,
  );
  const consumers = await db.selectFrom('outbox_consumers').selectAll().execute();
  for (const consumer of consumers)
    if (Number(consumer.last_id) !== latest) problems.push(`consumer ${consumer.name} at ${consumer.last_id}, outbox at ${latest}`);
  // The daily statistics' consumer counted every message row exactly once, across the kill.
  const dailyMessages = await db.selectFrom('daily_stats').select('count').where('metric', '=', 'messages').execute();
  const countedMessages = dailyMessages.reduce((sum, row) => sum + Number(row.count), 0);
  if (countedMessages !== rows.length) problems.push(`daily statistics count ${countedMessages} messages but ${rows.length} rows`);
  // Reactions: every acknowledged one exists, and each message's counters agree with its rows.
  const reactionRows = await db.selectFrom('message_reactions').select(['message_id', 'user_id', 'reaction_name']).execute();
  const reactionKeys = new Set(reactionRows.map((row) => `${row.message_id} ${row.user_id} ${row.reaction_name}`));
  for (const key of acknowledged.reactions) if (!reactionKeys.has(key)) problems.push(`acknowledged reaction ${key} is missing`);
  const reactionsOf = new Map<string, Record<string, number>>();
  for (const row of reactionRows) {
    const map = reactionsOf.get(row.message_id) ?? {};
    map[row.reaction_name] = (map[row.reaction_name] ?? 0) + 1;
    reactionsOf.set(row.message_id, map);
  }
  const counters = await db.selectFrom('messages').select(['id', 'reactions', 'reactions_count']).execute();
  for (const message of counters) {
    const expected = reactionsOf.get(message.id) ?? {};
    const total = Object.values(expected).reduce((sum, n) => sum + n, 0);
    const stored = JSON.parse(message.reactions) as Record<string, number>;
    const storedNonZero = Object.fromEntries(Object.entries(stored).filter(([, n]) => n > 0));
    if (message.reactions_count !== total || JSON.stringify(Object.entries(storedNonZero).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
      problems.push(`message ${message.id}: reactions ${message.reactions} / ${message.reactions_count} but rows say ${JSON.stringify(expected)}`);
    }
  }
  const mostRows = await db.selectFrom('message_reaction_counts').select(['message_id', 'reaction_name', 'reaction_count']).execute();
  for (const row of mostRows) {
    if (row.reaction_count !== (reactionsOf.get(row.message_id)?.[row.reaction_name] ?? 0))
      problems.push(`most-reacted index for ${row.message_id}/${row.reaction_name} is ${row.reaction_count}`);
  }

  // Posts and likes: acknowledged ones exist, and each post's like count agrees with its rows.
  const postRows = await db.selectFrom('posts').select(['id', 'author_id', 'reactions']).execute();
  const postIds = new Set(postRows.map((row) => row.id));
  for (const postId of acknowledged.posts.keys()) if (!postIds.has(postId)) problems.push(`acknowledged post ${postId} is missing`);
  const likeRows = await db.selectFrom('post_reactions').select(['post_id', 'user_id']).where('reaction_name', '=', 'like').execute();
  const likeKeys = new Set(likeRows.map((row) => `${row.post_id} ${row.user_id}`));
  for (const key of acknowledged.likes) if (!likeKeys.has(key)) problems.push(`acknowledged like ${key} is missing`);
  for (const post of postRows) {
    const likes = likeRows.filter((row) => row.post_id === post.id).length;
    const stored = (JSON.parse(post.reactions) as Record<string, number>).like ?? 0;
    if (stored !== likes) problems.push(`post ${post.id}: like count ${stored} but ${likes} likes`);
  }

  // The tray consumed each like exactly once: a post's like record counts its distinct likers other
  // than the author (a replayed event would add an actor twice or a second record).
  const likeRecords = await db.selectFrom('tray_records').select(['target_id', 'actors_count']).where('verb', '=', 'like').execute();
  const recordsByPost = new Map<string, number[]>();
  for (const record of likeRecords) recordsByPost.set(record.target_id, [...(recordsByPost.get(record.target_id) ?? []), record.actors_count]);
  for (const post of postRows) {
    const likers = new Set(likeRows.filter((row) => row.post_id === post.id && row.user_id !== post.author_id).map((row) => row.user_id));
    const records = recordsByPost.get(post.id) ?? [];
    const expected = likers.size === 0 ? [] : [likers.size];
    if (JSON.stringify(records) !== JSON.stringify(expected))
      problems.push(`post ${post.id}: like records ${JSON.stringify(records)} but ${likers.size} likers`);
  }

  const messageEvents = await db.selectFrom('outbox').select('payload').where('type', '=', 'message.created').execute();
  const eventIds = messageEvents.map((event) => (JSON.parse(event.payload) as { messageId: string }).messageId);
  if (new Set(eventIds).size !== eventIds.length) problems.push('a message.created event was written twice');
  const live = rows.map((row) => row.id);
  const withoutEvent = live.filter((id) => !eventIds.includes(id));
  if (withoutEvent.length > 0) problems.push(`${withoutEvent.length} messages have no message.created event`);
  return problems;
}

describe.each(testDatabases)('crash safety on %s', (database) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`keeps every acknowledged write and nothing half-written across ${ROUNDS} SIGKILLs`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-crash-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = { DATA_DIR: dataDir, PARLEY_TRAY_ENABLED: '1' };
    if (database === 'postgres') {
      const name = `parley_crash_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.pathname = `/${name}`;
      env.DATABASE_URL = url.toString();
      // One instance: no upload can be in flight elsewhere when it restarts, so orphans go at once.
      env.PARLEY_BLOB_SWEEP_GRACE_SECONDS = '0';
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      });
    }
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();
    const acknowledged: Acknowledged = { messages: new Set(), comments: new Map(), reactions: new Set(), posts: new Map(), likes: new Set() };
    let server = await startServer(env);
    const people: Person[] = [];
    for (const userId of ['crash-ann', 'crash-bo', 'crash-cy', 'crash-di']) {
      expect((await call(`${server.url}/api/v2/users`, 'PUT', { userId, displayName: userId })).status).toBe(200);
      const minted = await call(`${server.url}/api/v2/users/${userId}/tokens`, 'POST', { expiresIn: 3600 });
      people.push({ userId, token: (minted.json as { accessToken: string }).accessToken });
    }
    const channels = ['crash-a', 'crash-b', 'crash-c'];
    for (const channelId of channels) {
      expect((await call(`${server.url}/api/v2/channel`, 'POST', { channelId, type: 'standard', userIds: people.map((person) => person.userId) })).status).toBe(
        200,
      );
    }
    const communityId = 'crash-community';
    expect((await call(`${server.url}/client/v1/communities`, 'POST', { communityId, displayName: 'Crash club' }, people[0]?.token)).status).toBe(200);
    for (const person of people.slice(1))
      expect((await call(`${server.url}/client/v1/communities/${communityId}/join`, 'POST', {}, person.token)).status).toBe(200);

    for (let round = 0; round < ROUNDS; round++) {
      const stop = { dead: false };
      const load = runLoad(server.url, channels, people, communityId, png, acknowledged, stop);
      await new Promise((resolve) => setTimeout(resolve, 300 + randomInt(900)));
      stop.dead = true;
      await kill(server);
      await load;
      server = await startServer(env);
    }
    // Let the restarted server's consumers catch up, then look at the data as it is on disk.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await kill(server);
    const storage = openStorage({ databaseUrl: env.DATABASE_URL ?? null, dataDir, poolSize: 2 });
    try {
      expect(acknowledged.messages.size).toBeGreaterThan(0);
      const problems = await checkInvariants(storage, dataDir, acknowledged);
      process.stdout.write(
        `crash (${database}): ${ROUNDS} SIGKILLs; acknowledged ${acknowledged.messages.size} messages, ${acknowledged.reactions.size} reactions, ${acknowledged.posts.size} posts, ${acknowledged.likes.size} likes; ${problems.length} problems\n`,
      );
      expect(problems).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
