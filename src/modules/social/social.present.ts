import { type Static, Type } from '@sinclair/typebox';
import { iso, parseJson } from '../../shared/values.js';
import type { CommentRow, CommunityRow, PostReactionRow, PostRow } from './social.store.js';
import { IsoTime, Nullable, ReactionCounts } from '../../shared/schemas.js';

/** Storage rows -> the client API's community, post and comment records (docs/contract.md, Surfaces beyond the original). */
export const CommunityRecord = Type.Object(
  {
    communityId: Type.String(),
    displayName: Type.String(),
    memberCount: Type.Integer(),
    createdBy: Type.String({ description: 'The userId of the creator' }),
    isMember: Type.Boolean({ description: 'Whether the caller is a member' }),
    createdAt: IsoTime('When the community was created'),
    updatedAt: IsoTime('When the community last changed (members joining or leaving included)'),
  },
  {
    description: 'A community: a shared feed of posts',
    examples: [
      {
        communityId: 'hiking-club',
        displayName: 'Hiking Club',
        memberCount: 18,
        createdBy: 'alice',
        isMember: true,
        createdAt: '2025-02-01T12:00:00.000Z',
        updatedAt: '2025-03-10T17:42:19.250Z',
      },
    ],
  },
);
export type CommunityRecord = Static<typeof CommunityRecord>;

export const PostRecord = Type.Object(
  {
    postId: Type.String(),
    communityId: Nullable(Type.String(), "The community posted in; null for a post on the author's own feed"),
    userId: Type.String({ description: 'The author' }),
    text: Type.String({ description: "'' once deleted" }),
    commentsCount: Type.Integer(),
    reactions: ReactionCounts('How many reactions of each name the post has'),
    reactionsCount: Type.Integer({ description: 'All reactions on the post' }),
    isDeleted: Type.Boolean(),
    createdAt: IsoTime('When the post was made'),
    updatedAt: IsoTime('When the post last changed'),
  },
  {
    description: "A post in a community or on its author's own feed",
    examples: [
      {
        postId: '67d3f5a5e4b0a1c2d3e4f550',
        communityId: 'hiking-club',
        userId: 'alice',
        text: 'Saturday: Mont Salève loop, meet at 8:00 at the station.',
        commentsCount: 3,
        reactions: { like: 5 },
        reactionsCount: 5,
        isDeleted: false,
        createdAt: '2025-03-12T18:04:11.402Z',
        updatedAt: '2025-03-13T07:55:30.118Z',
      },
    ],
  },
);
export type PostRecord = Static<typeof PostRecord>;

export const CommentRecord = Type.Object(
  {
    commentId: Type.String(),
    postId: Type.String(),
    parentId: Nullable(Type.String(), 'The comment this one replies to; null for a comment on the post itself'),
    userId: Type.String({ description: 'The author' }),
    text: Type.String({ description: "'' once deleted" }),
    isDeleted: Type.Boolean(),
    createdAt: IsoTime('When the comment was made'),
    updatedAt: IsoTime('When the comment last changed'),
  },
  {
    description: 'A comment on a post',
    examples: [
      {
        commentId: '67d3f5b9e4b0a1c2d3e4f551',
        postId: '67d3f5a5e4b0a1c2d3e4f550',
        parentId: null,
        userId: 'bob',
        text: 'Count me in!',
        isDeleted: false,
        createdAt: '2025-03-12T18:20:47.003Z',
        updatedAt: '2025-03-12T18:20:47.003Z',
      },
    ],
  },
);
export type CommentRecord = Static<typeof CommentRecord>;

export const PostReactionRecord = Type.Object(
  {
    reactionId: Type.String(),
    postId: Type.String(),
    userId: Type.String({ description: 'Who reacted' }),
    reactionName: Type.String({ description: "'like' feeds the post author's tray; other names are kept but not shown there" }),
    createdAt: IsoTime('When the user reacted'),
  },
  {
    description: "One user's reaction of one name on a post",
    examples: [
      {
        reactionId: '67d3f5c2e4b0a1c2d3e4f552',
        postId: '67d3f5a5e4b0a1c2d3e4f550',
        userId: 'bob',
        reactionName: 'like',
        createdAt: '2025-03-12T18:21:03.640Z',
      },
    ],
  },
);
export type PostReactionRecord = Static<typeof PostReactionRecord>;

export function presentCommunity(row: CommunityRow, isMember: boolean): CommunityRecord {
  return {
    communityId: row.id,
    displayName: row.display_name,
    memberCount: row.member_count,
    createdBy: row.created_by,
    isMember,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentPost(row: PostRow): PostRecord {
  const reactions = parseJson<Record<string, number>>(row.reactions, {});
  return {
    postId: row.id,
    communityId: row.community_id,
    userId: row.author_id,
    text: row.is_deleted === 1 ? '' : row.text,
    commentsCount: row.comments_count,
    reactions,
    reactionsCount: Object.values(reactions).reduce((sum, count) => sum + count, 0),
    isDeleted: row.is_deleted === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentComment(row: CommentRow): CommentRecord {
  return {
    commentId: row.id,
    postId: row.post_id,
    parentId: row.parent_id,
    userId: row.author_id,
    text: row.is_deleted === 1 ? '' : row.text,
    isDeleted: row.is_deleted === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentPostReaction(row: PostReactionRow): PostReactionRecord {
  return { reactionId: row.id, postId: row.post_id, userId: row.user_id, reactionName: row.reaction_name, createdAt: iso(row.created_at) };
}
