import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import type { ChannelsService } from '../channels/channels.service.js';
import { type ChannelRow, CONVERSATION_TYPE } from '../channels/channels.types.js';
import type { ProcessedImage } from '../messages/images.js';
import type { MediaService } from '../messages/media.service.js';
import { type CreatedMessage, MAX_TEXT_LENGTH, type MessageActor, type MessagesService } from '../messages/messages.service.js';
import type { SendRules } from '../messages/send-rules.js';
import type { UserRow } from '../users/users.types.js';

/** Where a bot message goes: a user (direct) or a group channel and a topic in it. */
export type BotTarget = { uid: string } | { gid: string; tid?: string | undefined };

export interface BotUpload {
  data: Buffer;
  fileName: string;
  mimeType: string;
}

/**
 * The id of the conversation between a bot and a user: derived from the pair, so every instance and
 * every concurrent first send names the same channel, and the channels table's primary key lets
 * exactly one of them create it. "dm-" + 32 hex characters stays within the 50-character id limit.
 */
export function conversationIdOf(botUserId: string, userId: string): string {
  return `dm-${createHash('sha256').update(`${botUserId}\u0000${userId}`, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * The bot API's rules (docs/contract.md, Bot API): resolve `uid` to the bot's conversation with that user
 * (created on first use) or `gid` to a group channel, check the send rules a member faces, then write
 * through the messages service, which applies the text guards (blacklist, whitelist), refuses closed
 * channels under the channel lock and appends message.created to the outbox.
 */
export function createBotService(deps: {
  channels: ChannelsService;
  /** The users module's lookup: a direct message goes to an existing user. */
  findUser: (userId: string) => Promise<UserRow | undefined>;
  messages: MessagesService;
  media: MediaService;
  sendRules: SendRules;
}) {
  const { channels, messages, media, sendRules } = deps;

  /**
   * The bot's conversation with a user, created with both as members the first time. `beforeCreate`
   * runs only when the conversation does not exist yet: a first message the text guards refuse
   * leaves no empty conversation behind.
   */
  async function conversationWith(bot: MessageActor, userId: string, beforeCreate?: () => void | Promise<void>): Promise<ChannelRow> {
    if (userId === bot.userId)
      throw new AppError('badRequest', 'A bot cannot send a direct message to itself.', { detail: [{ field: 'body.uid', message: 'must name another user' }] });
    const user = await deps.findUser(userId);
    if (user?.kind !== 'user') {
      throw new AppError('notFound', 'User not found.', { detail: [{ field: 'body.uid', message: `user ${userId} does not exist` }] });
    }
    const channelId = conversationIdOf(bot.userId, userId);
    let channel = await channels.find(channelId);
    if (!channel) {
      await beforeCreate?.();
      try {
        channel = (
          await channels.create(bot, {
            channelId,
            type: CONVERSATION_TYPE,
            metadata: { botId: bot.userId, userId },
            userIds: [userId],
          })
        ).channel;
      } catch (error) {
        // Another first send (here or on another instance) created it a moment ago: use that one.
        if (!(error instanceof AppError && error.kind === 'alreadyExists')) throw error;
        channel = await channels.find(channelId);
      }
    }
    if (!channel || channel.type !== CONVERSATION_TYPE) {
      throw new AppError('conflict', 'The conversation id is taken by a channel that is not this conversation.');
    }
    return channel;
  }

  async function groupOf(groupId: string): Promise<ChannelRow> {
    const channel = await channels.find(groupId);
    if (!channel || channel.type === CONVERSATION_TYPE) {
      throw new AppError('notFound', 'Group not found.', { detail: [{ field: 'body.gid', message: `group ${groupId} does not exist` }] });
    }
    return channel;
  }

  /** The channel and topic a message goes to, once the bot may post there. */
  async function resolve(
    bot: MessageActor,
    target: BotTarget,
    beforeCreate?: () => void | Promise<void>,
  ): Promise<{ channelId: string; topicId: string | null }> {
    const channel = 'uid' in target ? await conversationWith(bot, target.uid, beforeCreate) : await groupOf(target.gid);
    await sendRules.requirePoster(bot.userId, channel.id);
    const tid = 'gid' in target ? target.tid : undefined;
    return { channelId: channel.id, topicId: tid === undefined || tid === '' ? null : tid };
  }

  return {
    conversationWith,

    async sendText(bot: MessageActor, target: BotTarget, text: string): Promise<CreatedMessage> {
      // Whitespace alone is no message: refused like an empty text.
      if (text.trim() === '') {
        throw new AppError('parameters', 'body.message.data must be a non-empty text.', {
          detail: [{ field: 'body.message.data', message: 'must not be empty' }],
        });
      }
      // Checked before a first message creates the conversation (the messages service checks it again).
      if (text.length > MAX_TEXT_LENGTH && [...text].length > MAX_TEXT_LENGTH) {
        throw new AppError('parameters', `body.message.data must be at most ${MAX_TEXT_LENGTH} characters.`, {
          detail: [{ field: 'body.message.data', message: `must be at most ${MAX_TEXT_LENGTH} characters` }],
        });
      }
      const { channelId, topicId } = await resolve(bot, target, () => messages.checkTexts(bot, '', [{ field: 'message.data', text }]));
      return messages.createMessage(bot, { channelId, topicId, type: 'text', data: { text } });
    },

    async sendPicture(bot: MessageActor, target: BotTarget, upload: BotUpload, caption: string | undefined): Promise<CreatedMessage> {
      // A first picture is judged whole (caption, then the image itself) before the conversation is
      // made: a refused one used to leave an empty conversation, and its member.added, behind.
      let decoded: ProcessedImage | undefined;
      const checkFirst = async () => {
        if (caption) await messages.checkTexts(bot, '', [{ field: 'caption', text: caption }]);
        decoded = await media.decodeImage(upload.data, false);
      };
      const { channelId, topicId } = await resolve(bot, target, checkFirst);
      return media.createImageMessage(bot, { channelId, topicId, caption, file: upload.data, decoded });
    },

    async sendFile(bot: MessageActor, target: BotTarget, upload: BotUpload): Promise<CreatedMessage> {
      const { channelId, topicId } = await resolve(bot, target, () => media.checkFileName(bot, '', upload.fileName));
      return media.createFileMessage(bot, { channelId, topicId, file: upload.data, fileName: upload.fileName, contentType: upload.mimeType });
    },
  };
}

export type BotService = ReturnType<typeof createBotService>;
