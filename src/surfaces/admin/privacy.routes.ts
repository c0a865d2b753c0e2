import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Privacy } from '../../modules/privacy/privacy.js';
import { OpenObject, StringEnum } from '../../shared/schemas.js';
import { UserIdParams } from './identity.schemas.js';
import { networkAdmins } from './console-access.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['users'] };

const EraseQuery = Type.Object({
  messages: Type.Optional(
    StringEnum(
      ['delete', 'anonymise'],
      "delete (default): the user's messages are deleted, every copy redacted; anonymise: their text stays under the author erased-user",
    ),
  ),
});

const Erased = Type.Object(
  {
    status: Type.Literal('success'),
    erased: Type.Object({
      messages: Type.Integer({ description: 'Messages deleted or anonymised' }),
      reactions: Type.Integer({ description: 'Reactions removed, on messages and posts' }),
      posts: Type.Integer(),
      comments: Type.Integer(),
      flags: Type.Integer({ description: 'Flags the user had raised' }),
      memberships: Type.Integer({ description: 'Channels and communities left' }),
      avatars: Type.Integer(),
    }),
  },
  {
    description: 'What the erasure removed (this run; a run that finishes an interrupted one counts what was left)',
    examples: [{ status: 'success', erased: { messages: 120, reactions: 14, posts: 2, comments: 5, flags: 1, memberships: 3, avatars: 1 } }],
  },
);

const Section = (description: string) => Type.Array(OpenObject('One entry'), { description });

const UserExport = Type.Object(
  {
    format: Type.Literal('parley.user-export/1'),
    exportedAt: Type.String({ format: 'date-time' }),
    profile: OpenObject("The user's record as the users list shows it, with its kind; never the password"),
    channelMemberships: Section('Channels the user is a member of or banned from'),
    communityMemberships: Section('Community stints: joinedAt and leftAt (null while a member)'),
    messages: Section("The user's messages as message records, deleted ones included"),
    messageReactions: Section('Reactions the user gave to messages'),
    posts: Section('Posts the user wrote'),
    comments: Section('Comments the user wrote'),
    postReactions: Section('Reactions the user gave to posts'),
    messageFlags: Section('Messages the user flagged: messageId, reason (null when they gave none), createdAt'),
    userFlags: Section('Users the user flagged: userId, reason (null when they gave none), createdAt'),
    moderationReviews: Section(
      "The moderation queue's reviews about the user (of them as a flagged user, or of a message they wrote), as GET /api/v2/moderation/reviews lists them without the reviewer and with each flag's reason and time but not who flagged",
    ),
    trayRecords: Section("The user's own notification tray records"),
  },
  {
    description: 'Everything Parley holds about the user, as one JSON document written as it is read; never tokens, sessions or the password hash',
    examples: [
      {
        format: 'parley.user-export/1',
        exportedAt: '2025-03-01T10:15:42.318Z',
        profile: { userId: 'alice', displayName: 'Alice Martin', email: 'alice@example.com', kind: 'user' },
        channelMemberships: [
          { channelId: 'general', membership: 'member', roles: [], muteUntil: null, readToSegment: 12, joinedAt: '2025-01-06T08:00:00.000Z' },
        ],
        communityMemberships: [],
        messages: [{ messageId: '67d3f5a5e4b0a1c2d3e4f501', channelId: 'general', userId: 'alice', type: 'text', data: { text: 'Hello' } }],
        messageReactions: [{ messageId: '67d3f5a5e4b0a1c2d3e4f502', reactionName: 'like', createdAt: '2025-01-06T08:01:00.000Z' }],
        posts: [],
        comments: [],
        postReactions: [],
        messageFlags: [{ messageId: '67d3f5a5e4b0a1c2d3e4f503', reason: 'Off topic', createdAt: '2025-01-06T08:02:00.000Z' }],
        userFlags: [],
        moderationReviews: [
          {
            reviewId: '67d3f9c1e4b0a1c2d3e4f5a0',
            targetType: 'user',
            targetId: 'alice',
            channelId: null,
            decision: 'dismiss',
            authorAction: null,
            note: 'Misunderstanding',
            message: null,
            flags: [{ reason: 'Spam', createdAt: '2025-01-07T09:40:02.114Z' }],
            createdAt: '2025-01-07T10:02:41.907Z',
          },
        ],
        trayRecords: [],
      },
    ],
  },
);

/**
 * A user's data rights (admin token): erasure (GDPR article 17) and export (article 20). See
 * modules/privacy for what each covers.
 */
export function registerPrivacyRoutes(app: TypedApp, deps: { privacy: Privacy }): void {
  const { privacy } = deps;

  app.delete(
    '/users/:userId',
    {
      config: { ...networkAdmins('erasing users'), audit: 'user.erase' },
      schema: {
        ...tag,
        summary: 'Erase a user',
        description:
          "Erases the user: profile, credentials (sessions, grants, tokens, codes), memberships, reactions, flags they raised, avatars, tray records, posts and comments. Their messages are deleted with every copy redacted (messages=delete, the default) or kept under the author erased-user (messages=anonymise). The moderation queue's reviews keep their decisions: the user's flags leave their snapshots, erased-user stands where the user was the reviewed author, the reviewed user or the reviewer, and a reviewed message's text goes with messages=delete. Works in batches; if interrupted, calling it again finishes. An unknown user is a 404.",
        params: UserIdParams,
        querystring: EraseQuery,
        response: answers(Erased),
      },
    },
    async (request) => ({
      status: 'success' as const,
      erased: await privacy.erasure.erase(request.params.userId, request.query.messages ?? 'delete', auditNoteOf(request)),
    }),
  );

  app.get(
    '/users/:userId/export',
    {
      config: networkAdmins("exporting a user's data"),
      schema: {
        ...tag,
        summary: "Export a user's data",
        description:
          "Answers one JSON document with everything Parley holds about the user (profile, memberships, messages, reactions, posts, comments, flags raised with their reasons, the moderation queue's reviews about the user, tray records), written as it is read, so a long history streams. Never tokens or the password hash. An unknown user is a 404.",
        params: UserIdParams,
        response: answers(UserExport),
      },
    },
    async (request, reply) => {
      const chunks = await privacy.exports.open(request.params.userId);
      return reply.type('application/json; charset=utf-8').send(Readable.from(chunks));
    },
  );
}
