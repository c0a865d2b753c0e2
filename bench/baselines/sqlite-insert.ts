import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * The floor the message create is compared with: a bare node:http server whose POST handler reads
 * the JSON body and does one autocommit INSERT into better-sqlite3 (WAL, synchronous=NORMAL), then
 * answers a small JSON. No validation, no auth, no outbox, no counters: the naive single insert.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-baseline-'));
const db = new SQLite(path.join(dir, 'baseline.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`create table messages (
  id integer primary key,
  channel_id text not null,
  type text not null,
  data text not null,
  created_at integer not null
)`);
db.exec('create index messages_channel on messages (channel_id, id)');
const insert = db.prepare('insert into messages (channel_id, type, data, created_at) values (?, ?, ?, ?)');

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method !== 'POST') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"status":"ok"}');
      return;
    }
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { channelId?: string; type?: string; data?: unknown };
      const result = insert.run(String(body.channelId), String(body.type), JSON.stringify(body.data ?? {}), Date.now());
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ status: 'success', id: Number(result.lastInsertRowid) }));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"status":"error"}');
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
// SIGINT too: Ctrl-C on `npm run bench` reaches every process of the group, this one included.
const shutDown = () =>
  server.close(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
