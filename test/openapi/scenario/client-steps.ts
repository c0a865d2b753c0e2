import { field, type World } from './world.js';

/** The end users' side of the scenario (/client/v1): reading and writing, reacting, moderating, communities. */

type Body = { data: { messages: Array<{ messageId: string; channelSegment: number }> } };
const firstMessage = (body: Body) => body.data.messages[0];

/** Alice reads her profile and channels, writes text, an image and a file, and downloads them. */
export async function clientMessages(w: World): Promise<void> {
  const alice = w.person('alice');
  const channelId = w.id('channel');
  const as = { token: alice.token };
  await w.call('GET', '/client/v1/me', as);
  await w.call('GET', '/client/v1/channels?limit=20', as);
  const lounge = w.t.uniqueId('lounge');
  await w.admin('POST', '/api/v2/channel', { json: { channelId: lounge, type: 'standard', joinable: true } });
  await w.call('POST', `/client/v1/channels/${lounge}/join`, as);
  await w.call('POST', `/client/v1/channels/${lounge}/leave`, as);
  const text = await w.call('POST', `/client/v1/channels/${channelId}/messages`, {
    ...as,
    json: { type: 'text', data: { text: 'Hello from Alice' }, tags: ['greeting'] },
  });
  const sent = field(text, firstMessage, 'message');
  w.ids.aliceMessage = sent.messageId;
  await w.call('POST', `/client/v1/channels/${channelId}/messages`, { ...as, form: 'type=custom&data[kind]=sticker&data[name]=wave&topicId=' });
  const image = await w.call('POST', `/client/v1/channels/${channelId}/images`, {
    ...as,
    multipart: {
      fields: [
        ['caption', 'Lunch'],
        ['fullImage', 'true'],
      ],
      file: { data: w.jpeg, fileName: 'lunch.jpg', contentType: 'image/jpeg' },
    },
  });
  w.ids.aliceImage = field(image, (body: Body) => firstMessage(body)?.messageId, 'messageId');
  const file = await w.call('POST', `/client/v1/channels/${channelId}/files`, {
    ...as,
    multipart: { fields: [['tags', 'notes']], file: { data: Buffer.from('{"notes":true}'), fileName: 'notes.json', contentType: 'application/json' } },
  });
  w.ids.aliceFile = field(file, (body: Body) => firstMessage(body)?.messageId, 'messageId');
  await w.call('GET', `/client/v1/channels/${channelId}/messages?last=20`, as);
  await w.call('GET', `/client/v1/channels/${channelId}/messages?parentId=${w.id('adminMessage')}`, as);
  await w.call('POST', `/client/v1/channels/${channelId}/read`, { ...as, json: { segment: sent.channelSegment } });
  await w.call('GET', `/client/v1/messages/${w.id('aliceImage')}/images?size=medium`, as);
  await w.call('GET', `/client/v1/messages/${w.id('aliceFile')}/files`, as);
  const typo = await w.call('POST', `/client/v1/channels/${channelId}/messages`, { ...as, json: { type: 'text', data: { text: 'tpyo' } } });
  await w.call('DELETE', `/client/v1/messages/${field(typo, (body: Body) => firstMessage(body)?.messageId, 'messageId')}`, as);
}

/** Bob reacts to Alice's message (and takes one back), flags it, and flags Alice herself. */
export async function clientReactionsAndFlags(w: World): Promise<void> {
  const bob = { token: w.person('bob').token };
  const messageId = w.id('aliceMessage');
  await w.call('POST', `/client/v1/messages/${messageId}/reactions`, { ...bob, json: { reactionName: 'like' } });
  await w.call('POST', `/client/v1/messages/${messageId}/reactions`, { ...bob, form: 'reactionName=laugh' });
  await w.call('DELETE', `/client/v1/messages/${messageId}/reactions/laugh`, bob);
  await w.call('POST', `/client/v1/messages/${messageId}/flag`, { ...bob, json: { reason: 'Off topic' } });
  await w.call('POST', `/client/v1/users/${w.person('alice').userId}/flag`, { ...bob, form: 'reason=Impersonation' });
}

/** The moderator (every permission) runs each moderation action on a channel of its own. */
export async function clientModeration(w: World): Promise<void> {
  const mod = { token: w.person('mod').token };
  const carol = w.person('carol').userId;
  const room = w.t.uniqueId('modroom');
  await w.admin('POST', '/api/v2/channel', { json: { channelId: room, type: 'standard', userIds: [w.person('mod').userId, carol] } });
  await w.call('PUT', `/client/v1/channels/${room}`, { ...mod, json: { displayName: 'Moderated room' } });
  await w.call('POST', `/client/v1/channels/${room}/users`, { ...mod, json: { userIds: [w.person('bob').userId] } });
  await w.call('DELETE', `/client/v1/channels/${room}/users`, { ...mod, json: { userIds: [w.person('bob').userId] } });
  await w.call('PUT', `/client/v1/channels/${room}/users/mute`, { ...mod, json: { mutePeriod: 30_000, userIds: [carol] } });
  await w.call('POST', `/client/v1/channels/${room}/users/ban`, { ...mod, json: { userIds: [carol] } });
  await w.call('POST', `/client/v1/channels/${room}/users/unban`, { ...mod, form: `userIds[]=${carol}` });
  await w.call('PUT', `/client/v1/channels/${room}/mute`, { ...mod, json: { mutePeriod: 30_000 } });
  await w.call('POST', `/client/v1/channels/${room}/close`, mod);
  await w.call('POST', `/client/v1/users/${w.person('target').userId}/ban`, mod);
}

/** A community, Alice's post, Bob's comment, reply and like (which feed Alice's tray), and the deletes. */
export async function communities(w: World): Promise<void> {
  const alice = { token: w.person('alice').token };
  const bob = { token: w.person('bob').token };
  const carol = { token: w.person('carol').token };
  const created = await w.call('POST', '/client/v1/communities', { ...alice, json: { displayName: 'Hiking club' } });
  const communityId = field(created, (body: { communityId: string }) => body.communityId, 'communityId');
  await w.call('POST', `/client/v1/communities/${communityId}/join`, bob);
  await w.call('POST', `/client/v1/communities/${communityId}/join`, carol);
  await w.call('POST', `/client/v1/communities/${communityId}/leave`, carol);
  const post = await w.call('POST', '/client/v1/posts', { ...alice, json: { communityId, text: 'Saturday: Mont Ventoux' } });
  const postId = field(post, (body: { postId: string }) => body.postId, 'postId');
  const comment = await w.call('POST', `/client/v1/posts/${postId}/comments`, { ...bob, json: { text: 'Count me in' } });
  const commentId = field(comment, (body: { commentId: string }) => body.commentId, 'commentId');
  await w.call('POST', `/client/v1/posts/${postId}/comments`, { ...alice, json: { text: 'Great!', parentId: commentId } });
  await w.call('POST', `/client/v1/posts/${postId}/reactions`, { ...bob, json: { reactionName: 'like' } });
  await w.call('POST', `/client/v1/posts/${postId}/reactions`, { ...bob, json: { reactionName: 'clap' } });
  await w.call('DELETE', `/client/v1/posts/${postId}/reactions/clap`, bob);
  const spare = await w.call('POST', `/client/v1/posts/${postId}/comments`, { ...bob, json: { text: 'double post' } });
  await w.call('DELETE', `/client/v1/comments/${field(spare, (body: { commentId: string }) => body.commentId, 'commentId')}`, bob);
  const own = await w.call('POST', '/client/v1/posts', { ...bob, json: { text: 'On my own feed' } });
  await w.call('DELETE', `/client/v1/posts/${field(own, (body: { postId: string }) => body.postId, 'postId')}`, bob);
}
