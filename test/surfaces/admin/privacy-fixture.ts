import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import type { TestApp } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A user with a marker in every text they own, and a token to act through the client API. */
export async function markedUser(t: TestApp, prefix: string) {
  const userId = t.uniqueId(prefix);
  const marker = `mk${t.uniqueId(prefix).replace(/[^a-z0-9]/gi, '')}zz`;
  await adminClient(t).createUser(userId, {
    displayName: `Name ${marker}`,
    email: `${marker}@example.com`,
    username: `login-${marker}`,
    password: 'a long enough password',
    metadata: { note: marker },
  });
  const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
  const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const ok = async <T>(method: Method, url: string, payload?: Record<string, unknown>): Promise<T> => {
    const response = await as(method, url, payload);
    if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as T;
  };
  return { userId, marker, token, as, ok };
}

export type MarkedUser = Awaited<ReturnType<typeof markedUser>>;

type MessagesBody = { data: { messages: Array<{ messageId: string }> } };

/**
 * Gives a user a history in every part Parley keeps: messages (text and a file holding the marker),
 * a post, a comment, reactions on messages and posts, flags on a message and a user, an avatar, and
 * a reaction and a comment from the other user on theirs. Answers the ids made.
 */
export async function giveHistory(t: TestApp, user: MarkedUser, other: MarkedUser, channelId: string) {
  const messageIds: string[] = [];
  for (const text of [`hello ${user.marker}`, `second ${user.marker}`]) {
    const body = await user.ok<MessagesBody>('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });
    messageIds.push(body.data.messages[0]?.messageId ?? '');
  }
  const file = multipartBody([], [{ name: 'file', fileName: `${user.marker}.txt`, contentType: 'text/plain', data: Buffer.from(`file ${user.marker}`) }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/client/v1/channels/${channelId}/files`,
    headers: { authorization: `Bearer ${user.token}`, 'content-type': file.contentType },
    payload: file.payload,
  });
  if (uploaded.statusCode !== 200) throw new Error(`file: ${uploaded.statusCode} ${uploaded.body}`);
  messageIds.push((uploaded.json() as MessagesBody).data.messages[0]?.messageId ?? '');
  const otherMessage = (await other.ok<MessagesBody>('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'from the other' } }))
    .data.messages[0]?.messageId;
  await user.ok('POST', `/client/v1/messages/${otherMessage}/reactions`, { reactionName: 'like' });
  await other.ok('POST', `/client/v1/messages/${messageIds[0]}/reactions`, { reactionName: 'like' });
  await user.ok('POST', `/client/v1/messages/${otherMessage}/flag`);
  await user.ok('POST', `/client/v1/users/${other.userId}/flag`);
  const post = await user.ok<{ postId: string }>('POST', '/client/v1/posts', { text: `post ${user.marker}` });
  const otherPost = await other.ok<{ postId: string }>('POST', '/client/v1/posts', { text: 'a post of the other' });
  await user.ok('POST', `/client/v1/posts/${otherPost.postId}/comments`, { text: `comment ${user.marker}` });
  await user.ok('POST', `/client/v1/posts/${otherPost.postId}/reactions`, { reactionName: 'clap' });
  await other.ok('POST', `/client/v1/posts/${post.postId}/reactions`, { reactionName: 'like' });
  const avatar = multipartBody([], [{ name: 'file', fileName: 'me.jpg', contentType: 'image/jpeg', data: await makeJpeg(64, 64) }]);
  const avatarSet = await t.app.inject({
    method: 'PUT',
    url: `/api/v2/users/${user.userId}/avatar`,
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': avatar.contentType },
    payload: avatar.payload,
  });
  if (avatarSet.statusCode !== 200) throw new Error(`avatar: ${avatarSet.statusCode} ${avatarSet.body}`);
  await settle(t);
  return { messageIds, otherMessage: otherMessage ?? '', postId: post.postId, avatarId: (avatarSet.json() as { avatar: string }).avatar };
}

export async function settle(t: TestApp): Promise<void> {
  await t.events.relay.flush();
  await t.events.consumers.drain();
}

/** The names of every table of the database, from the database's own catalogue. */
async function tableNames(t: TestApp): Promise<string[]> {
  const query =
    t.config.databaseUrl === null
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`;
  return (await query.execute(t.storage.db)).rows.map((row) => row.name);
}

/** Where a text appears: `table` for each table with a row holding it, `blob:<key>` for each blob file. */
export async function findEverywhere(t: TestApp, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of await tableNames(t)) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.storage.db)).rows;
    if (rows.some((row) => JSON.stringify(row).includes(text))) found.push(table);
  }
  const root = path.join(t.config.dataDir, 'blobs');
  for (const shard of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    for (const key of fs.readdirSync(path.join(root, shard))) {
      if (key.includes(text) || fs.readFileSync(path.join(root, shard, key)).includes(text)) found.push(`blob:${key}`);
    }
  }
  return found;
}
