import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { Id } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { CommentRecord, CommunityRecord, PostRecord, presentComment, presentCommunity, presentPost } from '../../modules/social/social.present.js';
import { MAX_POST_TEXT_LENGTH, type SocialService } from '../../modules/social/social.service.js';

const tag = { tags: ['client: communities and posts'] };
const Text = Type.String({ minLength: 1, maxLength: MAX_POST_TEXT_LENGTH });
const CommunityParams = Type.Object({ communityId: Id('The community id') });
const PostParams = Type.Object({ postId: Id('The post id') });
const ReactionParams = Type.Object({ postId: Id('The post id'), reactionName: Id('The reaction name') });
const POST_ID = '67d3f5a5e4b0a1c2d3e4f550';
const REACTION_ID = '67d3f5c2e4b0a1c2d3e4f552';

const NewCommunityBody = Type.Object(
  { communityId: Type.Optional(Id('Unique community id; generated when absent')), displayName: Type.String({ minLength: 1, maxLength: 200 }) },
  { examples: [{ communityId: 'hiking-club', displayName: 'Hiking Club' }] },
);
const NewPostBody = Type.Object(
  { communityId: Type.Optional(Id("The community; absent: the caller's own feed")), text: Text },
  { examples: [{ communityId: 'hiking-club', text: 'Saturday: Mont Salève loop, meet at 8:00 at the station.' }] },
);
const NewCommentBody = Type.Object(
  { text: Text, parentId: Type.Optional(Id('The comment replied to')) },
  { examples: [{ text: 'Count me in!' }, { text: 'See you there.', parentId: '67d3f5b9e4b0a1c2d3e4f551' }] },
);
const ReactionBody = Type.Object({ reactionName: Id('The reaction name') }, { examples: [{ reactionName: 'like' }] });

const PostDeleted = Type.Object(
  { status: Type.Literal('success'), postId: Type.String({ description: 'The post deleted' }) },
  { description: 'The post is deleted', examples: [{ status: 'success', postId: POST_ID }] },
);
const CommentDeleted = Type.Object(
  { status: Type.Literal('success'), commentId: Type.String({ description: 'The comment deleted' }) },
  { description: 'The comment is deleted', examples: [{ status: 'success', commentId: '67d3f5b9e4b0a1c2d3e4f551' }] },
);
const ReactionAdded = Type.Object(
  { addedId: Type.String({ description: "The reaction's id (the one already there when the caller had reacted so)" }) },
  { description: 'The reaction', examples: [{ addedId: REACTION_ID }] },
);
const ReactionRemoved = Type.Object(
  { removedId: Type.String({ description: 'The id of the reaction removed' }) },
  { description: 'The reaction removed', examples: [{ removedId: REACTION_ID }] },
);

const COMMUNITY_POST = 'A post in a community needs the caller to be a member of it (403, 400301); 404 for a missing or deleted post.';

interface SocialRouteDeps {
  social: SocialService;
}

/** Communities, posts, comments and post reactions under the client API (docs/contract.md, Surfaces beyond the original). */
export function registerSocialRoutes(app: TypedApp, deps: SocialRouteDeps): void {
  registerCommunityRoutes(app, deps);
  registerPostAndCommentRoutes(app, deps);
  registerPostReactionRoutes(app, deps);
}

function registerCommunityRoutes(app: TypedApp, deps: SocialRouteDeps): void {
  const { social } = deps;

  app.post(
    '/communities',
    {
      schema: {
        ...tag,
        summary: 'Create a community; the creator joins it',
        description:
          'Creates a community with the caller as its first member. 403 (400308, 400309) when its name or id breaks a moderation rule; 409 (400315) when the communityId is taken.',
        consumes: JSON_AND_FORM,
        body: NewCommunityBody,
        response: answers(CommunityRecord, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { community, isMember } = await social.createCommunity(principalOf(request), request.body);
      return presentCommunity(community, isMember);
    },
  );

  app.post(
    '/communities/:communityId/join',
    {
      schema: {
        ...tag,
        summary: 'Join a community',
        description: 'Makes the caller a member (joining again changes nothing) and answers the community. 404 for a missing community.',
        params: CommunityParams,
        response: answers(CommunityRecord),
      },
    },
    async (request) => {
      const { community, isMember } = await social.join(principalOf(request), request.params.communityId);
      return presentCommunity(community, isMember);
    },
  );

  app.post(
    '/communities/:communityId/leave',
    {
      schema: {
        ...tag,
        summary: 'Leave a community',
        description: "Ends the caller's membership (leaving again changes nothing) and answers the community. 404 for a missing community.",
        params: CommunityParams,
        response: answers(CommunityRecord),
      },
    },
    async (request) => {
      const { community, isMember } = await social.leave(principalOf(request), request.params.communityId);
      return presentCommunity(community, isMember);
    },
  );
}

function registerPostAndCommentRoutes(app: TypedApp, deps: SocialRouteDeps): void {
  const { social } = deps;

  app.post(
    '/posts',
    {
      schema: {
        ...tag,
        summary: "Post in a community (a member) or on the caller's own feed",
        description:
          "Creates a post; its community's members see it in their tray. 403 (400301) in a community the caller is not a member of; 404 for a missing community.",
        consumes: JSON_AND_FORM,
        body: NewPostBody,
        response: answers(PostRecord),
      },
    },
    async (request) => presentPost(await social.createPost(principalOf(request), request.body)),
  );

  app.delete(
    '/posts/:postId',
    {
      schema: {
        ...tag,
        summary: "Delete one of the caller's posts",
        description: 'Deletes the post; only its author may (403, 400301). 404 for a missing or deleted post.',
        params: PostParams,
        response: answers(PostDeleted),
      },
    },
    async (request) => {
      await social.deletePost(principalOf(request), request.params.postId);
      return { status: 'success' as const, postId: request.params.postId };
    },
  );

  app.post(
    '/posts/:postId/comments',
    {
      schema: {
        ...tag,
        summary: 'Comment on a post, or reply to a comment with parentId',
        description: `Creates a comment (the post's author sees it in the tray; replies do not feed the tray). ${COMMUNITY_POST}`,
        consumes: JSON_AND_FORM,
        params: PostParams,
        body: NewCommentBody,
        response: answers(CommentRecord),
      },
    },
    async (request) => presentComment(await social.createComment(principalOf(request), request.params.postId, request.body)),
  );

  app.delete(
    '/comments/:commentId',
    {
      schema: {
        ...tag,
        summary: "Delete a comment (its author or the post's author)",
        description: "Deletes the comment; its author or the post's author may (403, 400301 otherwise). 404 for a missing or deleted comment.",
        params: Type.Object({ commentId: Id('The comment id') }),
        response: answers(CommentDeleted),
      },
    },
    async (request) => {
      await social.deleteComment(principalOf(request), request.params.commentId);
      return { status: 'success' as const, commentId: request.params.commentId };
    },
  );
}

function registerPostReactionRoutes(app: TypedApp, deps: SocialRouteDeps): void {
  const { social } = deps;

  app.post(
    '/posts/:postId/reactions',
    {
      schema: {
        ...tag,
        summary: 'React to a post (`like` feeds the tray)',
        description: `Adds the caller's reaction of this name; reacting again answers the existing one. ${COMMUNITY_POST} 409 (400900) when a concurrent change got in the way: try again.`,
        consumes: JSON_AND_FORM,
        params: PostParams,
        body: ReactionBody,
        response: answers(ReactionAdded, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const reaction = await social.addReaction(principalOf(request), request.params.postId, request.body.reactionName);
      return { addedId: reaction.id };
    },
  );

  app.delete(
    '/posts/:postId/reactions/:reactionName',
    {
      schema: {
        ...tag,
        summary: "Remove the caller's reaction",
        description: "Removes the caller's reaction of this name. 404 for a missing or deleted post, or a reaction the caller does not have.",
        params: ReactionParams,
        response: answers(ReactionRemoved),
      },
    },
    async (request) => {
      const reaction = await social.removeReaction(principalOf(request), request.params.postId, request.params.reactionName);
      return { removedId: reaction.id };
    },
  );
}
