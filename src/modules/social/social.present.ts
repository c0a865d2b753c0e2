import { iso, parseJson } from '../channels/channels.present.js';
import type { CommentRow, CommunityRow, PostReactionRow, PostRow } from './social.store.js';

/** Storage rows -> the client API's community, post and comment records (API-CONVENTIONS.md section 6). */
export function presentCommunity(row: CommunityRow, isMember: boolean) {
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

export function presentPost(row: PostRow) {
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

export function presentComment(row: CommentRow) {
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

export function presentPostReaction(row: PostReactionRow) {
  return { reactionId: row.id, postId: row.post_id, userId: row.user_id, reactionName: row.reaction_name, createdAt: iso(row.created_at) };
}

export type PostRecord = ReturnType<typeof presentPost>;
