import { PERMISSIONS } from '../../../src/modules/roles/permissions.js';
import { signInClient } from '../../helpers/signin.js';
import { field, type World } from './world.js';

/** The operator's side of the scenario (/api/v2): people, roles, channels, messages, reactions, rules. */

type Body = { data: { messages: Array<{ messageId: string }> } };
const messageIdOf = (body: Body) => body.data.messages[0]?.messageId;

/** Roles, users (with profile fields and an avatar), their minted tokens, and the user listings. */
export async function peopleAndRoles(w: World): Promise<void> {
  await w.admin('PUT', '/api/v2/roles', { json: { publicIds: ['moderator'], permissions: [...PERMISSIONS] } });
  await w.admin('PUT', '/api/v2/roles', { form: 'publicIds=reader&permissions=DELETE_MESSAGE' });
  await w.admin('GET', '/api/v2/roles');
  for (const [key, fields] of [
    ['alice', { displayName: 'Alice Martin', firstname: 'Alice', lastname: 'Martin', email: 'alice@example.com', metadata: { team: 'support' } }],
    ['bob', { displayName: 'Bob Stone' }],
    ['carol', { displayName: 'Carol Diaz' }],
    ['mod', { displayName: 'Mo Derator', roles: ['moderator'] }],
    ['target', { displayName: 'Tar Get' }],
  ] as const) {
    const userId = w.t.uniqueId(key);
    await w.admin('PUT', '/api/v2/users', { json: { userId, ...fields } });
    const minted = await w.admin('POST', `/api/v2/users/${userId}/tokens`, { json: { expiresIn: 36_000 } });
    w.people[key] = { userId, token: field(minted, (body: { accessToken: string }) => body.accessToken, 'accessToken') };
  }
  const avatar = await w.admin('PUT', `/api/v2/users/${w.person('alice').userId}/avatar`, {
    multipart: { fields: [], file: { data: w.jpeg, fileName: 'alice.jpg', contentType: 'image/jpeg' } },
  });
  w.ids.avatar = field(avatar, (body: { avatar: string }) => body.avatar || undefined, 'avatar');
  await w.admin('GET', '/api/v2/users');
  await w.admin('GET', `/api/v2/users?search=${encodeURIComponent(w.person('alice').userId)}&limit=5`);
}

/** The main channel the people talk in, and a second one that the operator moderates and closes. */
export async function channels(w: World): Promise<void> {
  const members = ['alice', 'bob', 'mod'].map((key) => w.person(key).userId);
  const main = w.t.uniqueId('general');
  await w.admin('POST', '/api/v2/channel', {
    json: { channelId: main, type: 'standard', displayName: 'General', tags: ['team'], metadata: { topic: 'all' }, userIds: members },
  });
  w.ids.channel = main;
  const side = w.t.uniqueId('side');
  await w.admin('POST', '/api/v2/channel', { form: `channelId=${side}&type=standard&userIds[]=${w.person('carol').userId}` });
  await w.admin('POST', '/api/v2/channels', { json: { filter: 'member', options: { limit: 10 } } });
  await w.admin('PUT', `/api/v2/channel/${main}/retention`, { json: { days: 30 } });
  await w.admin('GET', `/api/v2/channel/${main}/retention`);
  await w.admin('PUT', `/api/v2/channel/${main}/retention`, { form: 'days=0' });
  await w.admin('PUT', `/api/v2/channel/${main}/retention`, { json: { days: null } });
  await w.admin('POST', '/api/v2/retention/run');
  await w.admin('POST', '/api/v2/channel/displayName', { json: { channelId: side, displayName: 'Side room' } });
  await w.admin('POST', `/api/v2/channel/${side}/users`, { json: { userIds: [w.person('target').userId] } });
  await w.admin('DELETE', `/api/v2/channel/${side}/users`, { json: { userIds: [w.person('target').userId] } });
  await w.admin('PUT', `/api/v2/channel/${side}/mute`, { json: { mutePeriod: 60_000 } });
  await w.admin('PUT', `/api/v2/channel/${side}/users/mute`, { json: { mutePeriod: 60_000, userIds: [w.person('carol').userId] } });
  await w.admin('POST', `/api/v2/channel/${side}/users/ban`, { json: { userIds: [w.person('carol').userId] } });
  await w.admin('POST', `/api/v2/channel/${side}/users/unban`, { json: { userIds: [w.person('carol').userId] } });
  await w.admin('POST', `/api/v2/channel/${side}/close`);
  const spare = w.t.uniqueId('spare');
  await w.admin('POST', '/api/v2/channel', { json: { channelId: spare, type: 'standard' } });
  await w.admin('POST', `/api/v2/channel/${spare}/displayName`, { json: { displayName: 'Spare room' } });
  await w.admin('PUT', `/api/v2/channel/${spare}`, { json: { displayName: 'Open room', joinable: true } });
  await w.admin('POST', `/api/v2/channels/${spare}/close`);
}

/** Text, image and file messages from the operator, read back, downloaded, one deleted. */
export async function adminMessages(w: World): Promise<void> {
  const channelId = w.id('channel');
  const text = await w.admin('POST', '/api/v2/message', { json: { channelId, type: 'text', data: { text: 'Welcome, everyone' }, tags: ['welcome'] } });
  w.ids.adminMessage = field(text, messageIdOf, 'messageId');
  await w.admin('POST', '/api/v2/message', {
    json: { channelId, type: 'custom', data: { kind: 'poll', options: ['a', 'b'] }, parentId: w.id('adminMessage') },
  });
  const image = await w.admin('POST', '/api/v2/messages/images', {
    multipart: {
      fields: [
        ['channelId', channelId],
        ['caption', 'The office'],
        ['tags', 'photo'],
      ],
      file: { data: w.jpeg, fileName: 'office.jpg', contentType: 'image/jpeg' },
    },
  });
  w.ids.adminImage = field(image, messageIdOf, 'messageId');
  const file = await w.admin('POST', '/api/v2/messages/files', {
    multipart: {
      fields: [['channelId', channelId]],
      file: { data: Buffer.from('minutes of the meeting\n'), fileName: 'minutes.txt', contentType: 'text/plain' },
    },
  });
  w.ids.adminFile = field(file, messageIdOf, 'messageId');
  await w.admin('POST', '/api/v2/messages', { json: { channelId, options: { last: 10 } } });
  await w.admin('GET', `/api/v2/message/${w.id('adminMessage')}`);
  await w.admin('GET', `/api/v2/messages/${w.id('adminImage')}/images?size=small`);
  await w.admin('GET', `/api/v2/messages/${w.id('adminFile')}/files`);
  const doomed = await w.admin('POST', '/api/v2/message', { json: { channelId, type: 'text', data: { text: 'typo' } } });
  await w.admin('DELETE', `/api/v2/message/${field(doomed, messageIdOf, 'messageId')}`);
}

/** The operator's reactions on a message, the reactors list and the most-reacted messages. */
export async function adminReactions(w: World): Promise<void> {
  const reference = { referenceId: w.id('adminMessage'), referenceType: 'message' };
  await w.admin('POST', '/api/v2/reactions', { json: { ...reference, reactionName: 'like' } });
  await w.admin('POST', '/api/v2/reactions', { json: { ...reference, reactionName: 'wow' } });
  await w.admin('GET', `/api/v2/reactions?referenceId=${w.id('adminMessage')}&referenceType=message&options[limit]=10`);
  await w.admin('GET', '/api/v2/reactions/messages/most?reactionName=like&limit=5');
  await w.admin('DELETE', '/api/v2/reactions', { json: { ...reference, reactionName: 'wow' } });
}

/** Blacklist and whitelist rules: created, listed, changed, deleted. */
export async function rules(w: World): Promise<void> {
  for (const [kind, word, extra] of [
    ['blacklist', 'frobnicate', { isMatchExactWord: true }],
    ['whitelist', 'docs.example.com', {}],
  ] as const) {
    const created = await w.admin('POST', `/api/v2/${kind}/records`, { json: { regexs: [word, `${word}2`], ...extra } });
    const ruleIds = field(created, (body: { data: { results: Array<{ ruleId: string }> } }) => body.data.results.map((rule) => rule.ruleId), 'ruleIds');
    await w.admin('GET', `/api/v2/${kind}/records`);
    await w.admin('PUT', `/api/v2/${kind}/records/${encodeURIComponent(ruleIds[0] ?? '')}`, { json: { isEnabled: false } });
    await w.admin('DELETE', `/api/v2/${kind}/records`, { json: { ruleIds: ruleIds.slice(1) } });
  }
}

/** The moderation queue: Bob's flags listed and reviewed (dismissed), the reviews and the summary. */
export async function moderationQueue(w: World): Promise<void> {
  const messageId = w.id('aliceMessage');
  const alice = w.person('alice').userId;
  await w.admin('GET', '/api/v2/moderation/summary');
  await w.admin('GET', '/api/v2/moderation/messages?limit=10');
  await w.admin('GET', '/api/v2/moderation/users');
  await w.admin('POST', `/api/v2/moderation/messages/${messageId}/review`, { json: { decision: 'dismiss', note: 'Fine in context' } });
  await w.admin('POST', `/api/v2/moderation/users/${alice}/review`, { form: 'decision=dismiss' });
  await w.admin('GET', '/api/v2/moderation/messages?status=reviewed');
  await w.admin('GET', '/api/v2/moderation/users?status=reviewed');
  await w.admin('GET', '/api/v2/moderation/reviews?targetType=message&limit=5');
}

/** OAuth clients, a bot's webhook settings and deliveries, the test clock, global bans and flags. */
export async function operatorTools(w: World): Promise<void> {
  const created = await w.admin('POST', '/api/v2/oauth/clients', {
    json: { name: 'Reporting app', redirectUris: ['https://reports.example/callback'], idTokenSignedResponseAlg: 'RS256' },
  });
  const clientId = field(created, (body: { clientId: string }) => body.clientId, 'clientId');
  await w.admin('GET', '/api/v2/oauth/clients');
  await w.admin('GET', `/api/v2/oauth/clients/${clientId}`);
  await w.admin('DELETE', `/api/v2/oauth/clients/${clientId}`);
  const bot = w.person('bot').userId;
  await w.admin('PUT', `/api/v2/bots/${bot}`, { json: { webhookUrl: null } });
  await w.admin('GET', `/api/v2/bots/${bot}/webhooks?limit=5`);
  const banned = w.t.uniqueId('banned');
  await w.admin('PUT', '/api/v2/users', { json: { userId: banned } });
  await w.admin('POST', '/api/v2/users/ban', { json: { userId: banned } });
  await w.admin('POST', '/api/v2/users/unban', { form: `userId=${banned}` });
  await w.admin('DELETE', `/api/v2/users/${w.person('alice').userId}/flags`);
  await w.admin('PUT', '/api/v2/test-clock', { json: { offsetMs: 1000 } });
  await w.admin('GET', '/api/v2/audit?limit=5');
  await revocation(w);
}

/** A signed-in person's sessions and tokens, listed and revoked; sign out everywhere; an admin token made and revoked. */
async function revocation(w: World): Promise<void> {
  const s = signInClient(w.t);
  const person = await s.createPerson();
  await s.login(person.username, person.password);
  await w.admin('POST', `/api/v2/users/${person.userId}/tokens`, { json: { expiresIn: 3600 } });
  const sessions = await w.admin('GET', `/api/v2/users/${person.userId}/sessions`);
  await w.admin('GET', `/api/v2/sessions?userId=${person.userId}&limit=10`);
  const sessionId = field(sessions, (body: { sessions: Array<{ sessionId: string }> }) => body.sessions[0]?.sessionId, 'sessionId');
  await w.admin('DELETE', `/api/v2/users/${person.userId}/sessions/${sessionId}`);
  const tokens = await w.admin('GET', `/api/v2/users/${person.userId}/tokens?limit=10`);
  const tokenId = field(tokens, (body: { accessTokens: Array<{ tokenId: string }> }) => body.accessTokens[0]?.tokenId, 'tokenId');
  await w.admin('DELETE', `/api/v2/users/${person.userId}/tokens/${tokenId}`);
  await w.admin('POST', `/api/v2/users/${person.userId}/signout`);
  // A password-reset link, opened and used on the sign-in service's page.
  const reset = await w.admin('POST', `/api/v2/users/${person.userId}/password-reset`);
  const resetUrl = new URL(field(reset, (body: { url: string }) => body.url, 'reset url'));
  const resetPage = await w.call('GET', `${resetUrl.pathname}${resetUrl.search}`);
  const resetForm = {
    csrf: s.csrfOf(resetPage.body),
    token: resetUrl.searchParams.get('token') ?? '',
    password: 'a reset password',
    confirmation: 'a reset password',
  };
  await w.call('POST', '/reset-password', { headers: { cookie: s.mergeCookies('', resetPage) }, form: new URLSearchParams(resetForm).toString() });
  // The person's data exported, then the person erased (their messages kept under the placeholder).
  await w.admin('GET', `/api/v2/users/${person.userId}/export`);
  await w.admin('DELETE', `/api/v2/users/${person.userId}?messages=anonymise`);
  const created = await w.admin('POST', '/api/v2/admin-tokens', { json: { name: w.t.uniqueId('ops') } });
  await w.admin('GET', '/api/v2/admin-tokens');
  await w.admin('GET', '/api/v2/me');
  await w.admin('DELETE', `/api/v2/admin-tokens/${field(created, (body: { tokenId: string }) => body.tokenId, 'tokenId')}`);
}

/** What the console reads about one user (record, banned list, flags received, messages, tray) and the deployment's totals and status. */
export async function adminReads(w: World): Promise<void> {
  const alice = w.person('alice').userId;
  const carol = w.person('carol').userId;
  await w.call('POST', `/client/v1/users/${carol}/flag`, { token: w.person('bob').token, json: { reason: 'Posts spam links' } });
  await w.admin('GET', `/api/v2/users/${alice}`);
  await w.admin('GET', '/api/v2/users?filter=banned&limit=5');
  await w.admin('GET', `/api/v2/users/${carol}/flags?limit=5`);
  await w.admin('GET', `/api/v2/users/${alice}/messages?limit=5`);
  await w.admin('GET', `/api/v2/users/${alice}/tray?limit=5`);
  await w.admin('GET', '/api/v2/stats');
  await w.admin('GET', '/api/v2/stats/daily?days=7');
  await w.admin('GET', '/api/v2/status');
}

/** The routes of the console's Rules, Channels, Roles and Apps screens, each called once. */
export async function adminConsoleRoutes(w: World): Promise<void> {
  await w.admin('POST', '/api/v2/rules/test', { json: { text: 'Read https://docs.example.com/guide' } });
  await w.admin('GET', `/api/v2/channel/${w.ids.channel}`);
  await w.admin('GET', `/api/v2/channel/${w.ids.channel}/users?limit=2`);
  const role = w.t.uniqueId('retired');
  await w.admin('PUT', '/api/v2/roles', { json: { publicIds: [role], permissions: ['DELETE_MESSAGE'] } });
  await w.admin('DELETE', `/api/v2/roles/${role}`);
  const client = await w.admin('POST', '/api/v2/oauth/clients', { json: { name: 'Wiki', redirectUris: ['https://wiki.example.com/callback'] } });
  const clientId = field(client, (body: { clientId: string }) => body.clientId, 'clientId');
  await w.admin('PUT', `/api/v2/oauth/clients/${clientId}`, { json: { postLogoutRedirectUris: ['https://wiki.example.com/'] } });
  await w.admin('GET', '/api/v2/bots');
}
