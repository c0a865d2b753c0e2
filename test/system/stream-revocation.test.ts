import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BuiltApp } from '../../src/app.js';
import { adminClient } from '../helpers/admin.js';
import { type SignedInPerson, signedInPerson } from '../helpers/credentials.js';
import { signInClient } from '../helpers/signin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ready = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
if (!ready) process.stdout.write('stream revocation tests on three instances skipped: they need TEST_DATABASE_URL and TEST_REDIS_URL.\n');

/** How soon after the revoking answer every affected stream is closed, on every instance. */
const CLOSE_BOUND_MS = 1000;
/** The documented close code of a stream whose token was revoked (docs/guides/stream.md). */
const CLOSE_TOKEN_REVOKED = 4001;
/** An hour-long heartbeat never beats during a test: a stream closed in time was closed by the revocation itself. */
const WITHOUT_HEARTBEAT = { gateway: { heartbeatMs: 3_600_000 } };
/** A rotated refresh token presented again is a replay at once. */
const NO_REUSE_WINDOW = { PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '0' };

interface Frame {
  type: string;
  data: { message?: { data?: { text?: string } }; data?: { text?: string } };
}

/** One open stream and what it saw: its frames, and its close code once it closed. */
interface Stream {
  label: string;
  socket: WebSocket;
  frames: Frame[];
  closed: Promise<number>;
}

function openStream(base: string, token: string, label: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base}/client/v1/stream?token=${token}`);
    const frames: Frame[] = [];
    const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Frame));
    socket.on('open', () => resolve({ label, socket, frames, closed }));
    socket.on('unexpected-response', (_request, response) => reject(new Error(`${label}: HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The stream's close code if it closes by `deadline` (a real-time instant), else 'still open'. */
function closeCodeBy(stream: Stream, deadline: number): Promise<number | 'still open'> {
  return Promise.race([stream.closed, sleep(deadline - Date.now()).then(() => 'still open' as const)]);
}

/** Waits (5 s at most) until the stream has a frame carrying the text. */
async function receives(stream: Stream, text: string): Promise<boolean> {
  const deadline = Date.now() + 5000;
  const carries = () => stream.frames.some((frame) => (frame.data.message?.data?.text ?? frame.data.data?.text) === text);
  while (!carries() && Date.now() < deadline && stream.socket.readyState === WebSocket.OPEN) await sleep(10);
  return carries();
}

/** The instances a scene spreads its streams over: the first one is where the admin revokes. */
interface Instance {
  name: string;
  base: string;
}

/** The person's credentials as the admin API lists them: the minted token, the sign-in grant and the login session. */
interface CredentialIds {
  mintedTokenId: string;
  grantId: string;
  sessionId: string;
}

type Held = 'signIn' | 'minted';

interface Revocation {
  what: string;
  revoke: (admin: ReturnType<typeof adminClient>, person: SignedInPerson, ids: CredentialIds, t: TestApp) => Promise<LightMyRequestResponse>;
  /** The revoking answer's status, when it is not 200. */
  status?: number;
  /** Which of the person's streams it ends: those opened with the sign-in access token, the minted one, or both. */
  ends: Held[];
}

const REVOCATIONS: Revocation[] = [
  {
    what: 'a password change',
    revoke: (admin, person) => admin.call('PUT', '/api/v2/users', { userId: person.userId, password: 'a password changed by the admin' }),
    ends: ['signIn', 'minted'],
  },
  {
    what: 'signing out everywhere',
    revoke: (admin, person) => admin.call('POST', `/api/v2/users/${person.userId}/signout`),
    ends: ['signIn', 'minted'],
  },
  {
    what: 'an erasure',
    revoke: (admin, person) => admin.call('DELETE', `/api/v2/users/${person.userId}`),
    ends: ['signIn', 'minted'],
  },
  {
    what: 'revoking one access token',
    revoke: (admin, person, ids) => admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${ids.mintedTokenId}`),
    ends: ['minted'],
  },
  {
    what: 'revoking a grant',
    revoke: (admin, person, ids) => admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${ids.grantId}`),
    ends: ['signIn'],
  },
  {
    // A refresh token used again after its rotation was copied: the whole grant goes (no reuse window in these apps).
    what: 'a refresh token replayed',
    revoke: async (_admin, person, _ids, t) => {
      const sign = signInClient(t);
      const basic = { id: person.client.clientId, secret: person.client.clientSecret };
      const rotated = await sign.token({ grant_type: 'refresh_token', refresh_token: person.refreshToken }, basic);
      expect(rotated.statusCode, rotated.body).toBe(200);
      return sign.token({ grant_type: 'refresh_token', refresh_token: person.refreshToken }, basic);
    },
    status: 400,
    ends: ['signIn'],
  },
  {
    // The sign-in token was issued to the app's client; the minted one to none.
    what: "deleting the app's OAuth client",
    revoke: (admin, person) => admin.call('DELETE', `/api/v2/oauth/clients/${person.client.clientId}`),
    ends: ['signIn'],
  },
  {
    // A login session issues no access token: its apps keep their grants (docs of DELETE .../sessions/{sessionId}).
    what: 'revoking a login session',
    revoke: (admin, person, ids) => admin.call('DELETE', `/api/v2/users/${person.userId}/sessions/${ids.sessionId}`),
    ends: [],
  },
];

/**
 * For each revocation: the person holds two streams on every instance (one opened with the access
 * token of an app's sign-in, one with a token minted by the admin API), and another person one. The
 * admin revokes on the first instance; the streams the revocation ends close with 4001 on every
 * instance within CLOSE_BOUND_MS of the answer, and the others stay open and keep delivering.
 */
function describeStreamRevocation(setting: () => { t: TestApp; instances: Instance[] }): void {
  async function scene() {
    const { t, instances } = setting();
    const admin = adminClient(t);
    const person = await signedInPerson(t);
    const otherId = t.uniqueId('bystander');
    await admin.createUser(otherId);
    const otherToken = ((await admin.call('POST', `/api/v2/users/${otherId}/tokens`)).json() as { accessToken: string }).accessToken;
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [person.userId, otherId] });

    const tokens = (await admin.call('GET', `/api/v2/users/${person.userId}/tokens`)).json() as {
      accessTokens: Array<{ tokenId: string; source: string }>;
      grants: Array<{ grantId: string }>;
    };
    const sessions = (await admin.call('GET', `/api/v2/users/${person.userId}/sessions`)).json() as { sessions: Array<{ sessionId: string }> };
    const ids: CredentialIds = {
      mintedTokenId: tokens.accessTokens.find((token) => token.source === 'minted')?.tokenId ?? '',
      grantId: tokens.grants[0]?.grantId ?? '',
      sessionId: sessions.sessions[0]?.sessionId ?? '',
    };
    expect(Object.values(ids).every((id) => id !== '')).toBe(true);

    const streams: Array<{ stream: Stream; held: Held | 'bystander' }> = [];
    for (const instance of instances) {
      streams.push({ stream: await openStream(instance.base, person.accessToken, `sign-in token on ${instance.name}`), held: 'signIn' });
      streams.push({ stream: await openStream(instance.base, person.mintedToken, `minted token on ${instance.name}`), held: 'minted' });
      streams.push({ stream: await openStream(instance.base, otherToken, `other person on ${instance.name}`), held: 'bystander' });
    }
    return { t, admin, person, ids, channelId, streams };
  }

  it.each(REVOCATIONS)('$what closes exactly the streams it revokes, on every instance, within 1 s', async (revocation) => {
    const { t, admin, person, ids, channelId, streams } = await scene();
    try {
      const response = await revocation.revoke(admin, person, ids, t);
      const deadline = Date.now() + CLOSE_BOUND_MS;
      expect(response.statusCode, response.body).toBe(revocation.status ?? 200);

      const ended = streams.filter(({ held }) => held !== 'bystander' && revocation.ends.includes(held));
      const kept = streams.filter((entry) => !ended.includes(entry));
      const codes = await Promise.all(ended.map(({ stream }) => closeCodeBy(stream, deadline)));
      expect(Object.fromEntries(ended.map(({ stream }, index) => [stream.label, codes[index]]))).toEqual(
        Object.fromEntries(ended.map(({ stream }) => [stream.label, CLOSE_TOKEN_REVOKED])),
      );

      // The kept streams are still open once an ended one would have been closed, and still deliver.
      await sleep(deadline - Date.now());
      expect(Object.fromEntries(kept.map(({ stream }) => [stream.label, stream.socket.readyState]))).toEqual(
        Object.fromEntries(kept.map(({ stream }) => [stream.label, WebSocket.OPEN])),
      );
      const text = `still here after ${revocation.what}`;
      const sent = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });
      expect(sent.statusCode, sent.body).toBe(200);
      for (const { stream } of kept) expect(await receives(stream, text), stream.label).toBe(true);
    } finally {
      for (const { stream } of streams) stream.socket.close();
    }
  });
}

describe('stream revocation on one SQLite instance', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', NO_REUSE_WINDOW, WITHOUT_HEARTBEAT);
    base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  });
  afterAll(async () => {
    await t?.close();
  });

  describeStreamRevocation(() => ({ t, instances: [{ name: 'the instance', base }] }));
});

describe.skipIf(!ready)('stream revocation on three instances sharing PostgreSQL and Redis', () => {
  let a: TestApp;
  const instances: Instance[] = [];

  beforeAll(async () => {
    const env = { ...NO_REUSE_WINDOW, REDIS_URL: process.env.TEST_REDIS_URL as string };
    a = await startTestApp('postgres', env, WITHOUT_HEARTBEAT);
    const b: BuiltApp = await a.startPeer(env, WITHOUT_HEARTBEAT);
    const c: BuiltApp = await a.startPeer(env, WITHOUT_HEARTBEAT);
    for (const [name, app] of [
      ['A', a.app],
      ['B', b.app],
      ['C', c.app],
    ] as const) {
      instances.push({ name: `instance ${name}`, base: (await app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws') });
    }
  });
  afterAll(async () => {
    await a?.close();
  });

  describeStreamRevocation(() => ({ t: a, instances }));
});
