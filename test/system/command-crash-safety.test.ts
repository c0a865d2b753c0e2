import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { testDatabases } from '../helpers/test-app.js';
import { killServerProcess as kill, type ServerProcess as Server, startServerProcess } from '../helpers/server-process.js';

/**
 * Commands under SIGKILL: a timed channel ban, a review of a flagged message (delete, and a timed ban of
 * its author) and an erasure run against a real server process, which is killed at a random moment
 * while they run and started again on the same data. Each must have happened whole, its audit entry
 * and outbox events included, or not at all; an erasure under way when the process died is finished
 * by the next start. A command answered 200 must have happened.
 */
const ROUNDS = Number(process.env.COMMAND_CRASH_ROUNDS ?? 3);
const adminToken = randomBytes(32).toString('hex');

/** This file's server: the admin token. */
function startServer(env: Record<string, string>): Promise<Server> {
  return startServerProcess({ PARLEY_ADMIN_TOKEN: adminToken, ...env });
}
/** Messages each erased user wrote: enough that an erasure takes long enough to be killed midway. */
const ERASED_USER_MESSAGES = 40;

async function call(url: string, method: string, body?: unknown, token = adminToken): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function ok(url: string, method: string, body?: unknown, token = adminToken): Promise<Record<string, unknown>> {
  const answer = await call(url, method, body, token);
  if (answer.status !== 200) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json;
}

/** What one round set up and fired; `answered` holds the status each command got, if any. */
interface Round {
  ban: { channelId: string; userId: string };
  review: { channelId: string; messageId: string; authorId: string };
  erasure: { userId: string };
  answered: Map<'ban' | 'review' | 'erasure', number>;
}

async function userWithToken(base: string, userId: string): Promise<string> {
  await ok(`${base}/api/v2/users`, 'PUT', { userId, displayName: `Person ${userId}` });
  const minted = await ok(`${base}/api/v2/users/${userId}/tokens`, 'POST', { expiresIn: 3600 });
  return minted.accessToken as string;
}

async function sendAs(base: string, token: string, channelId: string, text: string): Promise<string> {
  const sent = await ok(`${base}/client/v1/channels/${channelId}/messages`, 'POST', { type: 'text', data: { text } }, token);
  return (sent.data as { messages: Array<{ messageId: string }> }).messages[0]?.messageId as string;
}

/** The targets of one round: a member to ban, a twice-flagged message to review, a user with a history to erase. */
async function setUp(base: string, round: number): Promise<Round> {
  const tag = `r${round}-${randomBytes(3).toString('hex')}`;
  const [banned, author, flaggerA, flaggerB, erased] = ['banned', 'author', 'flagger-a', 'flagger-b', 'erased'].map((role) => `${role}-${tag}`) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const tokens = new Map<string, string>();
  for (const userId of [banned, author, flaggerA, flaggerB, erased]) tokens.set(userId, await userWithToken(base, userId));
  const channelId = `room-${tag}`;
  await ok(`${base}/api/v2/channel`, 'POST', { channelId, type: 'standard', userIds: [banned, author, flaggerA, flaggerB, erased] });
  const messageId = await sendAs(base, tokens.get(author) as string, channelId, 'a message people flag');
  for (const flagger of [flaggerA, flaggerB]) await ok(`${base}/client/v1/messages/${messageId}/flag`, 'POST', { reason: 'spam' }, tokens.get(flagger));
  for (let i = 0; i < ERASED_USER_MESSAGES; i += 1) await sendAs(base, tokens.get(erased) as string, channelId, `erased text ${i}`);
  await ok(`${base}/client/v1/messages/${messageId}/reactions`, 'POST', { reactionName: 'wave' }, tokens.get(erased));
  return {
    ban: { channelId, userId: banned },
    review: { channelId, messageId, authorId: author },
    erasure: { userId: erased },
    answered: new Map(),
  };
}

/** Fires the three commands at once; each answer that arrives before the kill is kept. */
function fire(base: string, round: Round): Promise<unknown> {
  const send = async (kind: 'ban' | 'review' | 'erasure', method: string, url: string, body?: unknown) => {
    try {
      round.answered.set(kind, (await call(url, method, body)).status);
    } catch {
      // The process died before answering.
    }
  };
  return Promise.all([
    send('ban', 'POST', `${base}/api/v2/channel/${round.ban.channelId}/users/ban`, { userIds: [round.ban.userId], minutes: 60 }),
    send('review', 'POST', `${base}/api/v2/moderation/messages/${round.review.messageId}/review`, {
      decision: 'delete',
      author: { action: 'ban', minutes: 60 },
    }),
    send('erasure', 'DELETE', `${base}/api/v2/users/${round.erasure.userId}`),
  ]);
}

/** Successful audit entries of this operation naming this id. */
async function auditEntries(storage: Storage, operation: string, targetId: string): Promise<number> {
  const rows = await storage.db
    .selectFrom('audit_log as l')
    .innerJoin('audit_targets as t', 't.entry_id', 'l.id')
    .select('l.id')
    .where('l.operation', '=', operation)
    .where('l.status', '=', 200)
    .where('t.target_id', '=', targetId)
    .execute();
  return rows.length;
}

async function outboxEvents(storage: Storage, type: string, needle: string): Promise<number> {
  const rows = await storage.db.selectFrom('outbox').select('payload').where('type', '=', type).execute();
  return rows.filter((row) => row.payload.includes(needle)).length;
}

/** Each part of a command as found on disk: all true or all false, else the parts that disagree are named. */
function allOrNothing(what: string, parts: Record<string, boolean>, answered: number | undefined): string[] {
  const values = Object.values(parts);
  if (values.every(Boolean)) return [];
  if (values.every((value) => !value)) return answered === 200 ? [`${what}: answered 200 but nothing of it is there`] : [];
  return [`${what}: half done ${JSON.stringify(parts)}`];
}

async function checkBan(storage: Storage, round: Round): Promise<string[]> {
  const { channelId, userId } = round.ban;
  const member = await storage.db
    .selectFrom('channel_members')
    .select('membership')
    .where('channel_id', '=', channelId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const lift = await storage.db.selectFrom('ban_lifts').select('lift_at').where('user_id', '=', userId).where('channel_id', '=', channelId).executeTakeFirst();
  return allOrNothing(
    `ban of ${userId}`,
    {
      banned: member?.membership === 'banned',
      lift: lift !== undefined,
      audit: (await auditEntries(storage, 'channel.banUsers', userId)) === 1,
      removedEvent: (await outboxEvents(storage, 'member.removed', `"${userId}"`)) === 1,
    },
    round.answered.get('ban'),
  );
}

async function checkReview(storage: Storage, round: Round): Promise<string[]> {
  const { channelId, messageId, authorId } = round.review;
  const message = await storage.db.selectFrom('messages').select(['is_deleted', 'flag_count']).where('id', '=', messageId).executeTakeFirstOrThrow();
  const flags = await storage.db.selectFrom('message_flags').select('flagger_id').where('message_id', '=', messageId).execute();
  const reviews = await storage.db.selectFrom('moderation_reviews').select('id').where('target_id', '=', messageId).execute();
  const member = await storage.db
    .selectFrom('channel_members')
    .select('membership')
    .where('channel_id', '=', channelId)
    .where('user_id', '=', authorId)
    .executeTakeFirst();
  const lift = await storage.db
    .selectFrom('ban_lifts')
    .select('lift_at')
    .where('user_id', '=', authorId)
    .where('channel_id', '=', channelId)
    .executeTakeFirst();
  const problems = allOrNothing(
    `review of ${messageId}`,
    {
      deleted: message.is_deleted === 1,
      flagsCleared: flags.length === 0 && Number(message.flag_count) === 0,
      recorded: reviews.length === 1,
      authorBanned: member?.membership === 'banned',
      lift: lift !== undefined,
      audit: (await auditEntries(storage, 'moderation.reviewMessage', messageId)) === 1,
      deletedEvent: (await outboxEvents(storage, 'message.deleted', `"${messageId}"`)) === 1,
    },
    round.answered.get('review'),
  );
  // Untouched means untouched: both flags still there.
  if (reviews.length === 0 && (flags.length !== 2 || Number(message.flag_count) !== 2)) problems.push(`review of ${messageId}: flags changed without a review`);
  return problems;
}

async function checkErasure(storage: Storage, round: Round): Promise<string[]> {
  const { userId } = round.erasure;
  const user = await storage.db.selectFrom('users').select(['display_name']).where('id', '=', userId).executeTakeFirst();
  const pending = await storage.db.selectFrom('erasures').select('user_id').where('user_id', '=', userId).executeTakeFirst();
  const messages = await storage.db.selectFrom('messages').select('id').where('user_id', '=', userId).execute();
  const reactions = await storage.db.selectFrom('message_reactions').select('id').where('user_id', '=', userId).execute();
  const problems = allOrNothing(
    `erasure of ${userId}`,
    {
      userGone: user === undefined,
      messagesGone: messages.length === 0,
      reactionsGone: reactions.length === 0,
      audit: (await auditEntries(storage, 'user.erase', userId)) === 1,
    },
    round.answered.get('erasure'),
  );
  if (pending !== undefined) problems.push(`erasure of ${userId}: still marked under way after a start`);
  if (user !== undefined && user.display_name !== `Person ${userId}`) problems.push(`erasure of ${userId}: profile changed but the user is still there`);
  if (user !== undefined && messages.length !== ERASED_USER_MESSAGES)
    problems.push(`erasure of ${userId}: ${messages.length} messages left of ${ERASED_USER_MESSAGES}`);
  return problems;
}

/** Waits until the started server has finished the erasures a kill left under way. */
async function erasuresFinished(storage: Storage): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await storage.db.selectFrom('erasures').select('user_id').execute()).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function createDatabase(cleanups: Array<() => Promise<void>>): Promise<string> {
  const name = `parley_commands_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return url.toString();
}

describe.each(testDatabases)('commands under SIGKILL on %s', (database) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`leaves each ban, review and erasure whole or absent, audit entry included, across ${ROUNDS} kills`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-commands-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (database === 'postgres') env.DATABASE_URL = await createDatabase(cleanups);
    const rounds: Round[] = [];
    let server = await startServer(env);
    for (let round = 0; round < ROUNDS; round += 1) {
      const targets = await setUp(server.url, round);
      rounds.push(targets);
      const fired = fire(server.url, targets);
      // From before the first command commits to after the erasure's last batch.
      await new Promise((resolve) => setTimeout(resolve, randomInt(5, 400)));
      await kill(server);
      await fired;
      server = await startServer(env);
    }
    const storage = openStorage({ databaseUrl: env.DATABASE_URL ?? null, dataDir, poolSize: 2 });
    try {
      await erasuresFinished(storage);
      await kill(server);
      const problems: string[] = [];
      for (const round of rounds)
        problems.push(...(await checkBan(storage, round)), ...(await checkReview(storage, round)), ...(await checkErasure(storage, round)));
      const answered = rounds.flatMap((round) => [...round.answered.values()]);
      process.stdout.write(
        `command crash (${database}): ${ROUNDS} kills; ${answered.filter((status) => status === 200).length} of ${ROUNDS * 3} commands answered before the kill; ${problems.length} problems\n`,
      );
      expect(problems).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 300_000);
});
