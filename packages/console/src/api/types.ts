import type { Client, ClientPathsWithMethod, MethodResponse } from 'openapi-fetch';
import type { paths, Query, RequestBody as Body } from '@parley/client';

/**
 * The admin API's records, answers and bodies as the console uses them, derived from the types
 * `@parley/client` generates from the server's OpenAPI document (`npm run sdk:generate`) in this one
 * place: a field the server renames shows up here, and as a type error wherever the console reads it.
 */

/** The typed client's view of the admin API (src/api/client.ts builds it). */
type ApiClient = Client<paths>;

/**
 * A route's 200 answer as `call(api.METHOD(path))` reads it: openapi-fetch's own view of the answer,
 * which leaves out fields typed as always null (the tray's `paging.prev`).
 */
type Answer<Path extends ClientPathsWithMethod<ApiClient, Method>, Method extends 'get' | 'post' | 'put' | 'delete'> = MethodResponse<ApiClient, Method, Path>;

/* Who signs in */

/** GET /api/v2/me: who the console acts as, and what they may do. */
export type Me = Answer<'/api/v2/me', 'get'>;
export type Permission = Me['permissions'][number];

/* Messages and users */

type MessagesAnswer = Answer<'/api/v2/messages', 'post'>;
/** A message as the admin API answers it (POST /api/v2/messages). */
export type AdminMessage = MessagesAnswer['data']['messages'][number];
/** A user as the admin API answers it (the `users` of POST /api/v2/messages, `info` of GET /api/v2/users). */
export type AdminUser = MessagesAnswer['data']['users'][number];
/** POST /api/v2/messages: a channel's messages (or one message's comments) around a position. */
export type MessagesQuery = Body<'/api/v2/messages', 'post'>;
/** PUT /api/v2/users: a user's fields to change (only those sent change). */
export type UserUpdate = Body<'/api/v2/users', 'put'>;
/** POST /api/v2/message: a message sent as the calling admin. */
export type OutgoingMessageBody = Body<'/api/v2/message', 'post'>;

/** The users list's filter (`banned`: globally banned users). */
export type UserFilter = NonNullable<Query<'/api/v2/users', 'get'>['filter']>;
/** One flag a user received (GET /api/v2/users/{userId}/flags). */
export type ReceivedFlag = Answer<'/api/v2/users/{userId}/flags', 'get'>['flags'][number];
/** GET /api/v2/users/{userId}/tray: a page of the user's tray, older pages through paging.next only. */
export type InspectedTrayPage = Answer<'/api/v2/users/{userId}/tray', 'get'>;
/** A notification record as /notifications/history renders it for its reader. */
export type TrayRecord = InspectedTrayPage['data'][number];

/* The moderation queue */

/** GET /api/v2/moderation/messages: the open page (status=open) or the reviews (status=reviewed). */
type MessagesQueueAnswer = Answer<'/api/v2/moderation/messages', 'get'>;
export type FlaggedMessagesPage = Extract<MessagesQueueAnswer, { items: unknown }>;
type UsersQueueAnswer = Answer<'/api/v2/moderation/users', 'get'>;
export type FlaggedUsersPage = Extract<UsersQueueAnswer, { items: unknown }>;
/** One open flagged message of GET /api/v2/moderation/messages?status=open. */
export type FlaggedMessage = FlaggedMessagesPage['items'][number];
/** One open flagged user of GET /api/v2/moderation/users?status=open. */
export type FlaggedUser = FlaggedUsersPage['items'][number];
export type FlagEntry = FlaggedMessage['flags'][number];
/** GET /api/v2/moderation/reviews. */
export type ReviewsPage = Answer<'/api/v2/moderation/reviews', 'get'>;
/** A decision taken on a flagged message or user. */
export type Review = ReviewsPage['reviews'][number];
export type AuthorAction = NonNullable<Review['authorAction']>['action'];
export type MessageReviewInput = Body<'/api/v2/moderation/messages/{messageId}/review', 'post'>;
export type UserReviewInput = Body<'/api/v2/moderation/users/{userId}/review', 'post'>;

/* Channels */

type ChannelQueryAnswer = Answer<'/api/v2/channels', 'post'>;
/** One channel of POST /api/v2/channels, with the calling admin's membership. */
export type ChannelRow = ChannelQueryAnswer['results'][number];
export type Channel = ChannelRow['channel'];
/** GET /api/v2/channel/{channelId}: the channel, and the calling admin's membership. */
export type OneChannel = Answer<'/api/v2/channel/{channelId}', 'get'>;
/** One member (or banned user) of GET /api/v2/channel/{channelId}/users, with their account. */
export type MemberRow = Answer<'/api/v2/channel/{channelId}/users', 'get'>['results'][number];

/* Rules and roles */

/** A rule as the blacklist (words) lists it; the whitelist's (links) have no isMatchExactWord. */
export type Rule = Answer<'/api/v2/blacklist/records', 'get'>['data']['results'][number];
export type RuleChange = Body<'/api/v2/blacklist/records/{ruleId}', 'put'>;
/** POST /api/v2/rules/test: what a send would say of a text. */
export type RuleTestAnswer = Answer<'/api/v2/rules/test', 'post'>;
/** One rule a tested text breaks: a blacklisted word (its rule), or a link no whitelist rule allows (ruleId null). */
export type RuleMatch = RuleTestAnswer['matched'][number];
export type Role = Answer<'/api/v2/roles', 'get'>['data']['roles'][number];

/* Apps, the audit trail, the overview */

export type OAuthClient = Answer<'/api/v2/oauth/clients', 'get'>['clients'][number];
export type NewOAuthClient = Answer<'/api/v2/oauth/clients', 'post'>;
export type AdminToken = Answer<'/api/v2/admin-tokens', 'get'>['adminTokens'][number];
export type NewAdminToken = Answer<'/api/v2/admin-tokens', 'post'>;
export type WebhookDelivery = Answer<'/api/v2/bots/{userId}/webhooks', 'get'>['deliveries'][number];
export type AuditEntry = Answer<'/api/v2/audit', 'get'>['entries'][number];
/** GET /api/v2/stats: the network's totals (messages: those not deleted). */
export type NetworkStats = Answer<'/api/v2/stats', 'get'>;
/** GET /api/v2/status: the answering instance. */
export type InstanceStatus = Answer<'/api/v2/status', 'get'>;
