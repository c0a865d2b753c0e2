import type { LightMyRequestResponse } from 'fastify';
import { adminClient } from '../helpers/admin.js';
import { makeJpeg, multipartBody } from '../helpers/media.js';
import type { OriginalVersion } from '../helpers/published-shapes.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * Every admin v2 route the contract lists (docs/contract.md, Admin API) (and the original's own spellings Parley serves beside them),
 * each called on a scene of realistic data so that it succeeds, with the operation each version of
 * the original's swagger.yaml lists for it.
 */
type Admin = ReturnType<typeof adminClient>;

export interface Scene {
  t: TestApp;
  admin: Admin;
  /** The tag every channel of the scene carries, so a channel query lists them alone. */
  tag: string;
  /** The user the admin token acts as (the admin who creates a channel joins it as this user). */
  adminUserId: string;
  alice: string;
  bob: string;
  carol: string;
  /** Where alice and bob talk: messages, a comment, reactions of three users. */
  channelId: string;
  reactedMessageId: string;
  imageMessageId: string;
  fileMessageId: string;
  /** A fresh channel with these members besides the admin. */
  freshChannel(userIds?: string[]): Promise<string>;
  freshUser(): Promise<string>;
  as(userId: string, method: 'POST' | 'DELETE', url: string, body?: Record<string, unknown>): Promise<LightMyRequestResponse>;
}

async function ok(response: Promise<LightMyRequestResponse>, what: string): Promise<LightMyRequestResponse> {
  const answer = await response;
  if (answer.statusCode !== 200) throw new Error(`${what}: ${answer.statusCode} ${answer.body}`);
  return answer;
}

async function upload(t: TestApp, url: string, fields: Array<[string, string]>, file: { fileName: string; contentType: string; data: Buffer }) {
  const { payload, contentType } = multipartBody(fields, [{ name: 'file', ...file }]);
  const headers = { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType };
  return ok(t.app.inject({ method: 'POST', url, headers, payload }), `upload to ${url}`);
}

/** Users with roles and metadata, a channel with a conversation, reactions, a flag, media. */
export async function seedScene(t: TestApp): Promise<Scene> {
  const admin = adminClient(t);
  const tag = t.uniqueId('original-answers');
  const tokens = new Map<string, string>();
  const freshUser = async (): Promise<string> => {
    const userId = t.uniqueId('origuser');
    await admin.createUser(userId, { displayName: `Person ${userId}`, metadata: { team: 'support' }, roles: ['moderator'] });
    tokens.set(userId, (await ok(admin.call('POST', `/api/v2/users/${userId}/tokens`, {}), 'mint a token')).json().accessToken);
    return userId;
  };
  const as = (userId: string, method: 'POST' | 'DELETE', url: string, body?: Record<string, unknown>) =>
    ok(
      t.app.inject({ method, url, headers: { authorization: `Bearer ${tokens.get(userId)}` }, ...(body ? { payload: body } : {}) }),
      `${method} ${url} as ${userId}`,
    );
  const freshChannel = async (userIds: string[] = []): Promise<string> => {
    const channelId = t.uniqueId('origchannel');
    await admin.createChannel(channelId, { displayName: 'Support desk', metadata: { floor: 3 }, tags: [tag], userIds });
    return channelId;
  };

  await ok(admin.call('PUT', '/api/v2/roles', { publicIds: ['moderator'], permissions: ['MUTE_CHANNEL', 'DELETE_MESSAGE'] }), 'create a role');
  const [alice, bob, carol] = [await freshUser(), await freshUser(), await freshUser()];
  const channelId = await freshChannel([alice, bob]);
  const created = await ok(admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'Standup at 10:30' }, tags: ['news'] }), 'post');
  const reactedMessageId: string = created.json().data.messages[0].messageId;
  await as(alice, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'On my way' } });
  await as(bob, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'Me too' }, parentId: reactedMessageId });
  await ok(admin.call('POST', '/api/v2/reactions', { referenceId: reactedMessageId, referenceType: 'message', reactionName: 'like' }), 'react');
  await as(alice, 'POST', `/client/v1/messages/${reactedMessageId}/reactions`, { reactionName: 'like' });
  await as(bob, 'POST', `/client/v1/messages/${reactedMessageId}/reactions`, { reactionName: 'heart' });
  await as(alice, 'POST', `/client/v1/users/${bob}/flag`);
  const image = await upload(
    t,
    '/api/v2/messages/images',
    [
      ['channelId', channelId],
      ['caption', 'The whiteboard'],
    ],
    {
      fileName: 'board.jpg',
      contentType: 'image/jpeg',
      data: await makeJpeg(64, 48),
    },
  );
  const file = await upload(t, '/api/v2/messages/files', [['channelId', channelId]], {
    fileName: 'notes.txt',
    contentType: 'text/plain',
    data: Buffer.from('Minutes of the standup\n'),
  });
  // A channel of the scene the admin has left: its channelUser in the admin's channel query is null.
  const left = await admin.createChannel(t.uniqueId('origchannel'), { tags: [tag], userIds: [alice] });
  const adminUserId: string = left.channelUser.userId;
  await ok(admin.call('DELETE', `/api/v2/channel/${left.channel.channelId}/users`, { userIds: [adminUserId] }), 'leave a channel');
  return {
    t,
    admin,
    tag,
    adminUserId,
    alice,
    bob,
    carol,
    channelId,
    reactedMessageId,
    imageMessageId: image.json().data.messages[0].messageId,
    fileMessageId: file.json().data.messages[0].messageId,
    freshChannel,
    freshUser,
    as,
  };
}

export interface RouteCase {
  /** As Parley serves it: the contract's path, or the original's where Parley serves that one too. */
  route: string;
  /** The operation each version of the original's swagger.yaml lists for this route; none where it lists none. */
  original: Partial<Record<OriginalVersion, string>>;
  call(scene: Scene): Promise<LightMyRequestResponse>;
  /** A download: the original documents a file, not JSON, and the answer must be of this media type. */
  download?: RegExp;
}

const both = (operation2021: string, operation2023 = operation2021) => ({ '686a8b6': operation2021, '6e3323f': operation2023 });

async function postText(scene: Scene, text: string): Promise<string> {
  const created = await ok(scene.admin.call('POST', '/api/v2/message', { channelId: scene.channelId, type: 'text', data: { text } }), 'post');
  return created.json().data.messages[0].messageId;
}

const channelCases: RouteCase[] = [
  {
    route: 'POST /api/v2/channels',
    original: both('POST /api/v2/channels'),
    call: (s) => s.admin.call('POST', '/api/v2/channels', { tags: [s.tag], options: { limit: 20 } }),
  },
  {
    route: 'POST /api/v2/channel',
    original: both('POST /api/v2/channel'),
    call: (s) =>
      s.admin.form(
        'POST',
        '/api/v2/channel',
        `channelId=${s.t.uniqueId('origchannel')}&type=standard&displayName=Sales&tags[]=${s.tag}&userIds[]=${s.alice}&metadata[region]=emea`,
      ),
  },
  {
    route: 'POST /api/v2/channel/displayName',
    original: { '686a8b6': 'POST /api/v2/channel/displayName' },
    call: async (s) => s.admin.form('POST', '/api/v2/channel/displayName', `channelId=${await s.freshChannel()}&displayName=Help%20desk`),
  },
  {
    route: 'POST /api/v2/channel/:channelId/displayName',
    original: { '6e3323f': 'POST /api/v2/channel/{channelId}/displayName' },
    call: async (s) => s.admin.call('POST', `/api/v2/channel/${await s.freshChannel()}/displayName`, { displayName: 'Help desk' }),
  },
  {
    route: 'POST /api/v2/channel/:channelId/users',
    original: {},
    call: async (s) => s.admin.call('POST', `/api/v2/channel/${await s.freshChannel()}/users`, { userIds: [s.carol] }),
  },
  {
    route: 'DELETE /api/v2/channel/:channelId/users',
    original: {},
    call: async (s) => s.admin.call('DELETE', `/api/v2/channel/${await s.freshChannel([s.carol])}/users`, { userIds: [s.carol] }),
  },
  {
    route: 'PUT /api/v2/channel/:channelId/mute',
    original: both('POST /api/v2/channel/:channelId/mute', 'PUT /api/v2/channel/{channelId}/mute'),
    call: async (s) => s.admin.call('PUT', `/api/v2/channel/${await s.freshChannel()}/mute`, { mutePeriod: 600_000 }),
  },
  {
    route: 'PUT /api/v2/channel/:channelId/users/mute',
    original: both('POST /api/v2/channel/:channelId/users/mute', 'PUT /api/v2/channel/{channelId}/users/mute'),
    call: async (s) => s.admin.form('PUT', `/api/v2/channel/${await s.freshChannel([s.bob])}/users/mute`, `mutePeriod=600000&userIds[]=${s.bob}`),
  },
  {
    route: 'POST /api/v2/channel/:channelId/users/ban',
    original: both('POST /api/v2/channel/:channelId/users/ban', 'POST /api/v2/channel/{channelId}/users/ban'),
    call: async (s) => s.admin.form('POST', `/api/v2/channel/${await s.freshChannel([s.bob])}/users/ban`, `userIds[]=${s.bob}`),
  },
  {
    route: 'POST /api/v2/channel/:channelId/users/unban',
    original: both('POST /api/v2/channel/:channelId/users/unban', 'POST /api/v2/channel/{channelId}/users/unban'),
    call: async (s) => {
      const channelId = await s.freshChannel([s.bob]);
      await ok(s.admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [s.bob] }), 'ban');
      return s.admin.form('POST', `/api/v2/channel/${channelId}/users/unban`, `userIds[]=${s.bob}`);
    },
  },
  {
    route: 'POST /api/v2/channel/:channelId/close',
    original: both('POST /api/v2/channels/:channelId/close', 'POST /api/v2/channels/{channelId}/close'),
    call: async (s) => s.admin.call('POST', `/api/v2/channel/${await s.freshChannel([s.alice])}/close`),
  },
  {
    route: 'POST /api/v2/channels/:channelId/close',
    original: both('POST /api/v2/channels/:channelId/close', 'POST /api/v2/channels/{channelId}/close'),
    call: async (s) => s.admin.call('POST', `/api/v2/channels/${await s.freshChannel([s.alice])}/close`),
  },
];

const messageCases: RouteCase[] = [
  {
    route: 'POST /api/v2/messages',
    original: both('POST /api/v2/messages'),
    call: (s) => s.admin.call('POST', '/api/v2/messages', { channelId: s.channelId, options: { last: 20 } }),
  },
  {
    route: 'GET /api/v2/message/:messageId',
    original: both('GET /api/v2/message/:messageId', 'GET /api/v2/message/{messageId}'),
    call: (s) => s.admin.call('GET', `/api/v2/message/${s.reactedMessageId}`),
  },
  {
    route: 'POST /api/v2/message',
    original: both('POST /api/v2/message'),
    call: (s) => s.admin.call('POST', '/api/v2/message', { channelId: s.channelId, type: 'custom', data: { poll: { question: 'Lunch?' } }, tags: ['poll'] }),
  },
  {
    route: 'DELETE /api/v2/message/:messageId',
    original: both('DELETE /api/v2/message/:messageId', 'DELETE /api/v2/message/{messageId}'),
    call: async (s) => s.admin.call('DELETE', `/api/v2/message/${await postText(s, 'Posted by mistake')}`),
  },
  {
    route: 'POST /api/v2/messages/images',
    original: both('POST /api/v2/messages/images'),
    call: async (s) =>
      upload(
        s.t,
        '/api/v2/messages/images',
        [
          ['channelId', s.channelId],
          ['caption', 'Floor plan'],
          ['tags', 'plans'],
        ],
        {
          fileName: 'plan.jpg',
          contentType: 'image/jpeg',
          data: await makeJpeg(40, 30),
        },
      ),
  },
  {
    route: 'GET /api/v2/messages/:messageId/images',
    original: both('GET /api/v2/messages/:messageId/images?size', 'GET /api/v2/messages/{messageId}/images'),
    call: (s) => s.admin.call('GET', `/api/v2/messages/${s.imageMessageId}/images?size=small`),
    download: /^image\/jpeg$/,
  },
  {
    route: 'POST /api/v2/messages/files',
    original: both('POST /api/v2/messages/files'),
    call: (s) =>
      upload(s.t, '/api/v2/messages/files', [['channelId', s.channelId]], {
        fileName: 'agenda.txt',
        contentType: 'text/plain',
        data: Buffer.from('1. Budget\n'),
      }),
  },
  {
    route: 'GET /api/v2/messages/:messageId/files',
    original: both('GET /api/v2/messages/:messageId/files', 'GET /api/v2/messages/{messageId}/files'),
    call: (s) => s.admin.call('GET', `/api/v2/messages/${s.fileMessageId}/files`),
    download: /^text\/plain$/,
  },
];

const userCases: RouteCase[] = [
  // Every user of the scene on one page: both page tokens are null.
  { route: 'GET /api/v2/users', original: both('GET /api/v2/users'), call: (s) => s.admin.call('GET', '/api/v2/users?search=origuser-&limit=100') },
  {
    route: 'PUT /api/v2/users',
    original: both('PUT /api/v2/users'),
    call: (s) => s.admin.form('PUT', '/api/v2/users', `userId=${s.alice}&displayName=Alice%20M.&roles[]=moderator&metadata[team]=sales`),
  },
  {
    route: 'POST /api/v2/users/ban',
    original: both('POST /api/v2/users/ban'),
    call: async (s) => s.admin.form('POST', '/api/v2/users/ban', `userId=${await s.freshUser()}`),
  },
  {
    route: 'POST /api/v2/users/unban',
    original: both('POST /api/v2/users/unban'),
    call: async (s) => {
      const userId = await s.freshUser();
      await ok(s.admin.call('POST', '/api/v2/users/ban', { userId }), 'ban');
      return s.admin.form('POST', '/api/v2/users/unban', `userId=${userId}`);
    },
  },
  {
    route: 'DELETE /api/v2/users/:userId/flags',
    original: both('DELETE /api/v2/users/:userId/flags', 'DELETE /api/v2/users/{userId}/flags'),
    call: async (s) => {
      const flagged = await s.freshUser();
      await s.as(s.alice, 'POST', `/client/v1/users/${flagged}/flag`);
      return s.admin.call('DELETE', `/api/v2/users/${flagged}/flags`);
    },
  },
  { route: 'GET /api/v2/roles', original: both('GET /api/v2/roles'), call: (s) => s.admin.call('GET', '/api/v2/roles') },
  {
    route: 'PUT /api/v2/roles',
    original: both('PUT /api/v2/roles'),
    call: (s) => s.admin.form('PUT', '/api/v2/roles', 'publicIds[]=editor&permissions[]=EDIT_CHANNEL&permissions[]=DELETE_MESSAGE'),
  },
];

function ruleCases(kind: 'blacklist' | 'whitelist'): RouteCase[] {
  const base = `/api/v2/${kind}/records`;
  const word = (s: Scene) => (kind === 'blacklist' ? `darn${s.t.uniqueId('w').replace(/\W/g, '')}` : `${s.t.uniqueId('site').replace(/\W/g, '')}.example.com`);
  const create = async (s: Scene): Promise<string> => (await ok(s.admin.call('POST', base, { regexs: [word(s)] }), 'add a rule')).json().data.results[0].ruleId;
  return [
    {
      route: `GET ${base}`,
      original: both(`GET ${base}`),
      call: async (s) => {
        await create(s);
        return s.admin.call('GET', base);
      },
    },
    { route: `POST ${base}`, original: both(`POST ${base}`), call: (s) => s.admin.form('POST', base, `regexs[]=${word(s)}&regexs[]=${word(s)}`) },
    { route: `DELETE ${base}`, original: both(`DELETE ${base}`), call: async (s) => s.admin.call('DELETE', `${base}?ruleIds=${await create(s)}`) },
    {
      route: `PUT ${base}/:ruleId`,
      original: both(`PUT ${base}/:ruleId`),
      call: async (s) => s.admin.form('PUT', `${base}/${await create(s)}`, `ruleId=${word(s)}${kind === 'blacklist' ? '&isMatchExactWord=true' : ''}`),
    },
  ];
}

const reactionCases: RouteCase[] = [
  {
    route: 'GET /api/v2/reactions',
    original: both('GET /api/v2/reactions'),
    call: (s) => s.admin.call('GET', `/api/v2/reactions?referenceId=${s.reactedMessageId}&referenceType=message&options[limit]=10`),
  },
  {
    route: 'POST /api/v2/reactions',
    original: both('POST /api/v2/reactions'),
    call: (s) => s.admin.form('POST', '/api/v2/reactions', `referenceId=${s.reactedMessageId}&referenceType=message&reactionName=${s.t.uniqueId('wow')}`),
  },
  {
    route: 'DELETE /api/v2/reactions',
    original: both('DELETE /api/v2/reactions'),
    call: async (s) => {
      const messageId = await postText(s, 'React and take it back');
      await ok(s.admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName: 'sad' }), 'react');
      return s.admin.call('DELETE', `/api/v2/reactions?referenceId=${messageId}&referenceType=message&reactionName=sad`);
    },
  },
  {
    route: 'GET /api/v2/reactions/messages/most',
    original: both('GET /api/v2/reactions/messages/most'),
    call: (s) => s.admin.call('GET', '/api/v2/reactions/messages/most?reactionName=like&limit=5'),
  },
];

export const ROUTE_CASES: RouteCase[] = [
  ...channelCases,
  ...messageCases,
  ...userCases,
  ...ruleCases('blacklist'),
  ...ruleCases('whitelist'),
  ...reactionCases,
];
