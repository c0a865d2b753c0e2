import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import { maySeeChannel } from '../../modules/channels/channels.policy.js';
import type { ChannelRow } from '../../modules/channels/channels.types.js';
import type { AdminActor } from '../../modules/roles/admin-actor.js';
import { type Permission, PERMISSIONS } from '../../modules/roles/permissions.js';
import { requireMayActOnUsers } from '../../modules/users/users.policy.js';
import type { UserRow } from '../../modules/users/users.types.js';
import { AppError, notFound } from '../../shared/errors.js';

/**
 * Who may call each admin route, declared by the route itself (`config: moderators(...)` or
 * `config: networkAdmins(...)`). Admin tokens and network admins may call every route; the declaration
 * is about moderators (console users whose global roles grant permissions). A route that declares
 * nothing is for network admins only, so a route added without a declaration is closed to moderators
 * (test/surfaces/console/access-table.test.ts lists every route with its declaration).
 *
 * What a route acts on (a channel, a message, people) is named in `targets`; the channel and user
 * policies then decide for the moderator, once the body is read.
 */
export type AccessTarget =
  /** The channel of `:channelId` or `channelId` in the body: a bot's conversation does not exist for a moderator. */
  | 'channel'
  /** The message of `:messageId` or the `referenceId` of a reaction query: likewise, by its channel. */
  | 'message'
  /** The people named by `:userId`, `userId` or `userIds`: never a network admin. */
  | 'users'
  /** PUT /users: besides 'users', no global roles, and no other person's username or password. */
  | 'userWrite';

export interface ConsoleAccess {
  /** A moderator holding any one of these passes; an empty list: network admins only. */
  anyOf: readonly Permission[];
  /** What the route does, for the refusal ("changing channel members"). */
  what: string;
  targets: readonly AccessTarget[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: ConsoleAccess;
  }
}

/** The queue's routes; its services check each action's own permission. */
export const MODERATION: readonly Permission[] = ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'];
/** Reading channels and their messages. */
export const CHANNEL_READ: readonly Permission[] = [...MODERATION, 'EDIT_CHANNEL'];
/** Every console user holds one of these, or they would not be let in. */
export const ANY_CONSOLE_USER: readonly Permission[] = PERMISSIONS;

/** A route moderators may call with one of `anyOf`, on the targets named. */
export const moderators = (anyOf: readonly Permission[], what: string, ...targets: AccessTarget[]) => ({ access: { anyOf, what, targets } });

/** A route for network admins (and admin tokens) only, said on purpose. */
export const networkAdmins = (what: string) => ({ access: { anyOf: [], what, targets: [] } });

/** What a registered route declares, or null when it declares nothing (then: network admins only). */
export function accessOf(config: unknown): ConsoleAccess | null {
  return (config as { access?: ConsoleAccess } | undefined)?.access ?? null;
}

/** The refusal, naming what would let the caller through. */
function refusal(access: ConsoleAccess | null): AppError {
  if (access === null || access.anyOf.length === 0) {
    return new AppError('permissionDenied', `Only a network admin can use this route${access ? ` (${access.what})` : ''}.`);
  }
  const needs = access.anyOf.length === 1 ? `the permission ${access.anyOf[0]}` : `one of the permissions ${access.anyOf.join(', ')}`;
  const what = `${access.what.charAt(0).toUpperCase()}${access.what.slice(1)}`;
  return new AppError('permissionDenied', `${what} needs ${needs} through a global role, or a network admin.`);
}

type ModeratorActor = Extract<AdminActor, { kind: 'user' }>;

/** The console user this is about, or null for those who may do everything (admin tokens, network admins). */
function moderatorOf(request: FastifyRequest): ModeratorActor | null {
  const actor = request.adminActor;
  return actor === null || actor.kind !== 'user' || actor.networkAdmin ? null : actor;
}

/**
 * The moderator's route check, run by the admission of a console sign-in (after routing, before the
 * body): the route must grant one of the moderator's permissions. Admin tokens never reach it.
 */
export function authorizeConsoleRoute(request: FastifyRequest): void {
  const actor = moderatorOf(request);
  if (actor === null) return;
  const access = accessOf(request.routeOptions.config);
  if (access === null || !access.anyOf.some((permission) => actor.permissions.has(permission))) throw refusal(access);
}

export interface TargetLookups {
  findUser(userId: string): Promise<UserRow | undefined>;
  findChannel(channelId: string): Promise<ChannelRow | undefined>;
  /** The channel a message is in, deleted messages included. */
  channelOfMessage(messageId: string): Promise<ChannelRow | undefined>;
}

type Fields = Record<string, unknown> | undefined;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The ids a request names, from its path, then its query, then its body. */
function named(request: FastifyRequest, key: string): string | null {
  for (const source of [request.params, request.query, request.body] as Fields[]) {
    const value = text(source?.[key]);
    if (value !== null) return value;
  }
  return null;
}

function userIdsNamed(request: FastifyRequest): string[] {
  const single = named(request, 'userId');
  const many = (request.body as Fields)?.userIds;
  const list = Array.isArray(many) ? many.filter((id): id is string => typeof id === 'string') : [];
  return [...(single === null ? [] : [single]), ...list];
}

/** PUT /users by a moderator: no global roles, and a username or password only for a new user or themselves. */
function checkUserWrite(request: FastifyRequest, actor: ModeratorActor, target: UserRow | undefined): void {
  const body = (request.body ?? {}) as { roles?: unknown; username?: unknown; password?: unknown };
  if (body.roles !== undefined) throw new AppError('permissionDenied', 'Only a network admin changes global roles: leave roles out.');
  const own = target?.id === actor.userId;
  if (target !== undefined && !own && (body.username !== undefined || body.password !== undefined)) {
    throw new AppError('permissionDenied', "Only a network admin changes another person's username or password.");
  }
}

/** Asks the channel and user policies about everything the request names. */
async function checkTargets(request: FastifyRequest, actor: ModeratorActor, targets: readonly AccessTarget[], lookups: TargetLookups): Promise<void> {
  if (targets.includes('channel')) {
    const channelId = named(request, 'channelId');
    const channel = channelId === null ? undefined : await lookups.findChannel(channelId);
    if (channel !== undefined && !maySeeChannel(actor, channel)) throw notFound('Channel');
  }
  if (targets.includes('message')) {
    const messageId = named(request, 'messageId') ?? named(request, 'referenceId');
    const channel = messageId === null ? undefined : await lookups.channelOfMessage(messageId);
    if (channel !== undefined && !maySeeChannel(actor, channel)) throw notFound('Message');
  }
  if (targets.includes('users') || targets.includes('userWrite')) {
    const users = await Promise.all(userIdsNamed(request).map((userId) => lookups.findUser(userId)));
    requireMayActOnUsers(actor, users);
    if (targets.includes('userWrite')) checkUserWrite(request, actor, users[0]);
  }
}

/**
 * The policies' checks of what a moderator's request names, once the body is read: a preHandler added
 * only to routes that declare targets, so every other admin request, and every admin token's, runs no
 * extra hook.
 */
export function installConsoleGuards(scope: TypedApp, lookups: TargetLookups): void {
  const guardHandler = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    // Admin tokens and network admins leave at once: routeOptions builds a new object on every read.
    const actor = moderatorOf(request);
    if (actor === null) return done();
    const targets = accessOf(request.routeOptions.config)?.targets ?? [];
    if (targets.length === 0) return done();
    checkTargets(request, actor, targets, lookups).then(
      () => done(),
      (error: unknown) => done(error as Error),
    );
  };
  scope.addHook('onRoute', (route) => {
    if ((accessOf(route.config)?.targets.length ?? 0) === 0) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...existing, guardHandler];
  });
}
