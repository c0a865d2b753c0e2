import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { Id } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentComment, presentCommunity, presentPost } from '../../modules/social/social.present.js';
import { MAX_POST_TEXT_LENGTH, type SocialService } from '../../modules/social/social.service.js';

const tag = { tags: ['client: communities and posts'] };
const Text = Type.String({ minLength: 1, maxLength: MAX_POST_TEXT_LENGTH });
const CommunityParams = Type.Object({ communityId: Id('The community id') });
const PostParams = Type.Object({ postId: Id('The post id') });
const ReactionParams = Type.Object({ postId: Id('The post id'), reactionName: Id('The reaction name') });

/** Communities, posts, comments and post reactions under the client API (API-CONVENTIONS.md section 6). */
export function registerSocialRoutes(app: TypedApp, deps: { social: SocialService }): void {
  const { social } = deps;

  app.post(
    '/communities',
    {
      schema: {
        ...tag,
        summary: 'Create a community; the creator joins it',
        body: Type.Object({ communityId: Type.Optional(Id('Unique community id; generated when absent')), displayName: Type.String({ minLength: 1, maxLength: 200 }) }),
      },
    },
    async (request) => {
      const { community, isMember } = await social.createCommunity(principalOf(request), request.body);
      return presentCommunity(community, isMember);
    },
  );

  app.post('/communities/:communityId/join', { schema: { ...tag, summary: 'Join a community', params: CommunityParams } }, async (request) => {
    const { community, isMember } = await social.join(principalOf(request), request.params.communityId);
    return presentCommunity(community, isMember);
  });

  app.post('/communities/:communityId/leave', { schema: { ...tag, summary: 'Leave a community', params: CommunityParams } }, async (request) => {
    const { community, isMember } = await social.leave(principalOf(request), request.params.communityId);
    return presentCommunity(community, isMember);
  });

  app.post(
    '/posts',
    {
      schema: {
        ...tag,
        summary: "Post in a community (a member) or on the caller's own feed",
        body: Type.Object({ communityId: Type.Optional(Id('The community; absent: the caller\'s own feed')), text: Text }),
      },
    },
    async (request) => presentPost(await social.createPost(principalOf(request), request.body)),
  );

  app.delete('/posts/:postId', { schema: { ...tag, summary: "Delete one of the caller's posts", params: PostParams } }, async (request) => {
    await social.deletePost(principalOf(request), request.params.postId);
    return { status: 'success' as const, postId: request.params.postId };
  });

  app.post(
    '/posts/:postId/comments',
    {
      schema: {
        ...tag,
        summary: 'Comment on a post, or reply to a comment with parentId',
        params: PostParams,
        body: Type.Object({ text: Text, parentId: Type.Optional(Id('The comment replied to')) }),
      },
    },
    async (request) => presentComment(await social.createComment(principalOf(request), request.params.postId, request.body)),
  );

  app.delete(
    '/comments/:commentId',
    { schema: { ...tag, summary: "Delete a comment (its author or the post's author)", params: Type.Object({ commentId: Id('The comment id') }) } },
    async (request) => {
      await social.deleteComment(principalOf(request), request.params.commentId);
      return { status: 'success' as const, commentId: request.params.commentId };
    },
  );

  app.post(
    '/posts/:postId/reactions',
    { schema: { ...tag, summary: 'React to a post (`like` feeds the tray)', params: PostParams, body: Type.Object({ reactionName: Id('The reaction name') }) } },
    async (request) => {
      const reaction = await social.addReaction(principalOf(request), request.params.postId, request.body.reactionName);
      return { addedId: reaction.id };
    },
  );

  app.delete('/posts/:postId/reactions/:reactionName', { schema: { ...tag, summary: "Remove the caller's reaction", params: ReactionParams } }, async (request) => {
    const reaction = await social.removeReaction(principalOf(request), request.params.postId, request.params.reactionName);
    return { removedId: reaction.id };
  });
}
