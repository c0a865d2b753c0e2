import { createBot } from '../../helpers/bot.js';
import { signInClient } from '../../helpers/signin.js';
import { trayKit } from '../../helpers/tray.js';
import { field, type World } from './world.js';

/** Operations, the bot API, the notification tray and sign-in: the rest of the scenario. */

export async function operations(w: World): Promise<void> {
  await w.call('GET', '/healthz');
  await w.call('GET', '/readyz');
  await w.call('GET', '/metrics');
}

/** A bot made by the operator, a member of the main channel, writing to Alice and to the group. */
export async function bot(w: World): Promise<void> {
  const made = await createBot(w.t, 'Standup bot');
  w.people.bot = { userId: made.userId, token: made.token };
  const channelId = w.id('channel');
  await w.admin('POST', `/api/v2/channel/${channelId}/users`, { json: { userIds: [made.userId] } });
  const as = { token: made.token };
  const alice = w.person('alice').userId;
  const picture = { data: w.jpeg, fileName: 'chart.jpg', contentType: 'image/jpeg' };
  const report = { data: Buffer.from('date,done\n2024-05-01,3\n'), fileName: 'report.csv', contentType: 'text/csv' };
  await w.call('POST', '/bot/v1/direct/message', { ...as, json: { uid: alice, message: { type: 'text', data: 'Your standup is in 5 minutes' } } });
  await w.call('POST', '/bot/v1/group/message', { ...as, json: { gid: channelId, tid: '', message: { data: 'Standup starts now' } } });
  await w.call('POST', '/bot/v1/direct/picture', {
    ...as,
    multipart: {
      fields: [
        ['uid', alice],
        ['caption', 'Burndown'],
      ],
      file: picture,
    },
  });
  await w.call('POST', '/bot/v1/group/picture', {
    ...as,
    multipart: {
      fields: [
        ['gid', channelId],
        ['caption', 'Burndown'],
      ],
      file: picture,
    },
  });
  await w.call('POST', '/bot/v1/direct/file', { ...as, multipart: { fields: [['uid', alice]], file: report } });
  await w.call('POST', '/bot/v1/group/file', {
    ...as,
    multipart: {
      fields: [
        ['gid', channelId],
        ['tid', ''],
      ],
      file: report,
    },
  });
}

/** Alice's tray after Bob's comment and like on her post: the history, one record read, all read. */
export async function tray(w: World): Promise<void> {
  await trayKit(w.t).settle();
  const alice = { token: w.person('alice').token };
  const history = await w.call('GET', '/notifications/history', alice);
  const record = field(history, (body: { data: Array<{ verb: string; targetId: string; targetGroup: string }> }) => body.data[0], 'tray record');
  await w.call('POST', '/notifications/read', { ...alice, json: { verb: record.verb, targetId: record.targetId, targetGroup: record.targetGroup } });
  await w.call('POST', '/notifications/last-read', alice);
}

/**
 * A person signs in through the pages, authorizes a client (GET and form POST), exchanges the code
 * and the refresh token, reads userinfo, views an avatar, and signs out.
 */
export async function signIn(w: World): Promise<void> {
  const s = signInClient(w.t);
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth/jwks']) await w.call('GET', path);
  const person = await s.createPerson();
  const client = await s.createOAuthClient({ grantTypes: ['authorization_code', 'refresh_token'] });
  await w.call('GET', '/login');
  const cookie = await s.login(person.username, person.password);
  const query = s.authorizeQuery({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid profile',
    state: 'xyz',
  });
  const authorized = await w.call('GET', `/oauth/authorize?${query}`, { headers: { cookie }, status: 302 });
  const posted = await w.call('POST', '/oauth/authorize', { headers: { cookie }, form: query, status: 303 });
  s.redirectParams(posted);
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const code = s.redirectParams(authorized).get('code') ?? '';
  const exchanged = await w.call('POST', '/oauth/token', {
    headers: { authorization: basic },
    form: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }).toString(),
  });
  const tokens = field(exchanged, (body: { access_token: string; refresh_token: string }) => body, 'tokens');
  await w.call('POST', '/oauth/token', {
    headers: { authorization: basic },
    form: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
  });
  await w.call('GET', '/userinfo', { token: tokens.access_token });
  await w.call('POST', '/userinfo', { form: `access_token=${tokens.access_token}` });
  await w.call('GET', '/client/v1/me', { token: tokens.access_token });
  await w.call('GET', `/file/view/${w.id('avatar')}?size=small&access_token=${w.person('alice').token}`);
  const logoutPage = await w.call('GET', '/logout', { headers: { cookie } });
  await w.call('POST', '/logout', { headers: { cookie: s.mergeCookies(cookie, logoutPage) }, form: `csrf=${encodeURIComponent(s.csrfOf(logoutPage.body))}` });
}
