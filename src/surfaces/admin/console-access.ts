import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import type { AdminActor } from '../../modules/roles/admin-actor.js';
import { type Permission, PERMISSIONS } from '../../modules/roles/permissions.js';
import type { UserRow } from '../../modules/users/users.types.js';
import { AppError } from '../../shared/errors.js';

/**
 * Which admin routes a moderator (a console user whose global roles grant permissions) may call.
 * Admin tokens and network admins may call every route; this table is about everyone else. A route it
 * does not name is for network admins only, so a route added without a row here is closed to
 * moderators (test/surfaces/console/access-table.test.ts lists every route against it).
 */

/** Further checks of a moderator's request, once its body is read. */
type Guard = 'targetNotNetworkAdmin' | 'userWrite';

export interface ConsoleRule {
  /** "METHOD /api/v2/path/:param" as registered; a trailing "*" takes every route under that prefix. */
  route: string;
  /** A moderator holding any one of these passes; an empty list: network admins only. */
  anyOf: readonly Permission[];
  /** What the route does, for the refusal ("changing channel members"). */
  what: string;
  guard?: Guard;
}

const MODERATION: readonly Permission[] = ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'];
const CHANNEL_READ: readonly Permission[] = [...MODERATION, 'EDIT_CHANNEL'];

const rules = (methods: string, routes: string[], anyOf: readonly Permission[], what: string, guard?: Guard): ConsoleRule[] =>
  methods.split('|').flatMap((method) => routes.map((route) => ({ route: `${method} /api/v2${route}`, anyOf, what, ...(guard ? { guard } : {}) })));

const adminOnly = (methods: string, routes: string[], what: string): ConsoleRule[] => rules(methods, routes, [], what);

export const CONSOLE_RULES: readonly ConsoleRule[] = [
  // The moderation queue; its services check each action's own permission.
  ...rules('GET|POST', ['/moderation/*'], MODERATION, 'moderation'),
  // Channels and their messages, read.
  ...rules('POST', ['/channels', '/messages'], CHANNEL_READ, 'reading channels and their messages'),
  ...rules('GET', ['/message/:messageId', '/messages/:messageId/images', '/messages/:messageId/files'], CHANNEL_READ, 'reading messages'),
  ...rules('GET', ['/reactions', '/reactions/messages/most'], CHANNEL_READ, 'reading reactions'),
  ...rules('GET', ['/channel/:channelId', '/channel/:channelId/users'], CHANNEL_READ, 'reading channels and their members'),
  ...rules('DELETE', ['/message/:messageId'], ['DELETE_MESSAGE'], 'deleting a message'),
  // Channels, changed.
  ...rules('POST', ['/channel', '/channel/displayName', '/channel/:channelId/displayName'], ['EDIT_CHANNEL'], 'creating or renaming a channel'),
  ...rules('POST', ['/channel/:channelId/users'], ['EDIT_CHANNEL', 'ADD_CHANNEL_USER'], 'adding channel members'),
  ...rules('DELETE', ['/channel/:channelId/users'], ['EDIT_CHANNEL', 'REMOVE_CHANNEL_USER'], 'removing channel members'),
  ...rules('POST', ['/channel/:channelId/users/ban', '/channel/:channelId/users/unban'], ['EDIT_CHANNEL', 'BAN_USER_FROM_CHANNEL'], 'banning from a channel'),
  ...rules('PUT', ['/channel/:channelId/users/mute'], ['EDIT_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'], 'muting channel members'),
  ...rules('PUT', ['/channel/:channelId/mute'], ['EDIT_CHANNEL', 'MUTE_CHANNEL'], 'muting a channel'),
  ...rules('POST', ['/channel/:channelId/close', '/channels/:channelId/close'], ['EDIT_CHANNEL', 'CLOSE_CHANNEL'], 'closing a channel'),
  // Users: never a network admin's account, never roles or another person's sign-in.
  ...rules('GET', ['/users', '/users/:userId'], ['EDIT_USER', 'BAN_USER'], 'listing users'),
  ...rules('GET', ['/users/:userId/flags', '/users/:userId/messages'], ['EDIT_USER'], "reading a user's flags and messages"),
  ...rules('PUT', ['/users'], ['EDIT_USER'], 'editing users', 'userWrite'),
  ...rules('PUT', ['/users/:userId/avatar'], ['EDIT_USER'], 'changing avatars', 'targetNotNetworkAdmin'),
  ...rules('DELETE', ['/users/:userId/flags'], ['EDIT_USER'], "clearing a user's flags", 'targetNotNetworkAdmin'),
  ...rules('POST', ['/users/ban', '/users/unban'], ['BAN_USER'], 'banning users', 'targetNotNetworkAdmin'),
  // Network admins only, named so the table says so on purpose.
  ...adminOnly('POST', ['/message', '/messages/images', '/messages/files'], 'sending messages as the admin'),
  ...adminOnly('POST|DELETE', ['/reactions'], 'reacting as the admin'),
  ...adminOnly('GET|PUT', ['/channel/:channelId/retention'], 'message retention'),
  ...adminOnly('POST', ['/retention/run'], 'message retention'),
  ...adminOnly('GET|PUT', ['/roles'], 'roles'),
  ...adminOnly('DELETE', ['/roles/:publicId'], 'roles'),
  ...adminOnly('POST', ['/rules/test'], 'moderation rules'),
  ...adminOnly('GET|POST|DELETE', ['/blacklist/records', '/whitelist/records'], 'moderation rules'),
  ...adminOnly('PUT', ['/blacklist/records/:ruleId', '/whitelist/records/:ruleId'], 'moderation rules'),
  ...adminOnly('GET|POST', ['/oauth/clients'], 'OAuth clients'),
  ...adminOnly('GET|PUT|DELETE', ['/oauth/clients/:clientId'], 'OAuth clients'),
  ...adminOnly('GET|POST', ['/bots'], 'bots'),
  ...adminOnly('PUT', ['/bots/:userId'], 'bots'),
  ...adminOnly('GET', ['/bots/:userId/webhooks'], 'bot webhooks'),
  ...adminOnly('GET|POST', ['/admin-tokens'], 'admin tokens'),
  ...adminOnly('DELETE', ['/admin-tokens/:tokenId'], 'admin tokens'),
  ...adminOnly('GET', ['/audit'], 'the audit trail'),
  ...adminOnly('GET|POST', ['/users/:userId/tokens'], "a user's access tokens"),
  ...adminOnly('DELETE', ['/users/:userId/tokens/:tokenId'], "a user's access tokens"),
  ...adminOnly('GET', ['/users/:userId/sessions'], "a user's sessions"),
  ...adminOnly('DELETE', ['/users/:userId/sessions/:sessionId'], "a user's sessions"),
  ...adminOnly('POST', ['/users/:userId/signout'], "a user's sessions"),
  ...adminOnly('DELETE', ['/users/:userId'], 'erasing users'),
  ...adminOnly('GET', ['/users/:userId/export'], "exporting a user's data"),
  // A user's tray shows what others did around them (the tray inspector, like the export, is a network admin's).
  ...adminOnly('GET', ['/users/:userId/tray'], "a user's notification tray"),
  ...adminOnly('GET', ['/stats', '/status'], "the network's totals and status"),
  ...adminOnly('PUT', ['/test-clock'], 'the test clock'),
  // Who the caller is: every console user (each holds a permission, or they would not be let in).
  ...rules('GET', ['/me'], PERMISSIONS, 'reading who you are'),
];

/** The rule for a route, or null when the table does not name it (then: network admins only). */
export function consoleRuleOf(method: string, url: string): ConsoleRule | null {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  return CONSOLE_RULES.find((rule) => (rule.route.endsWith('*') ? key.startsWith(rule.route.slice(0, -1)) : key === rule.route)) ?? null;
}

/** The refusal, naming what would let the caller through. */
function refusal(rule: ConsoleRule | null): AppError {
  if (rule === null || rule.anyOf.length === 0) {
    return new AppError('permissionDenied', `Only a network admin can use this route${rule ? ` (${rule.what})` : ''}.`);
  }
  const needs = rule.anyOf.length === 1 ? `the permission ${rule.anyOf[0]}` : `one of the permissions ${rule.anyOf.join(', ')}`;
  const what = `${rule.what.charAt(0).toUpperCase()}${rule.what.slice(1)}`;
  return new AppError('permissionDenied', `${what} needs ${needs} through a global role, or a network admin.`);
}

/** The user a request names: `userId` in the path, else in the body. */
function targetUserIdOf(request: FastifyRequest): string | null {
  const fromParams = (request.params as { userId?: unknown } | undefined)?.userId;
  if (typeof fromParams === 'string') return fromParams;
  const fromBody = (request.body as { userId?: unknown } | undefined)?.userId;
  return typeof fromBody === 'string' ? fromBody : null;
}

type FindUser = (userId: string) => Promise<UserRow | undefined>;

type ModeratorActor = Extract<AdminActor, { kind: 'user' }>;

/** The console user this table is about, or null for those who may do everything (admin tokens, network admins). */
function moderatorOf(request: FastifyRequest): ModeratorActor | null {
  const actor = request.adminActor;
  return actor === null || actor.kind !== 'user' || actor.networkAdmin ? null : actor;
}

/** A moderator acts on people, never on a network admin's account. */
function requireNotNetworkAdmin(target: UserRow | undefined): void {
  if (target?.kind === 'admin') throw new AppError('permissionDenied', "Only a network admin can change a network admin's account.");
}

/**
 * PUT /users by a moderator: no global roles (a moderator would grant themselves more), and a username or
 * password only for a user it creates or for themselves (another person's sign-in is theirs).
 */
function checkUserWrite(request: FastifyRequest, actor: ModeratorActor, target: UserRow | undefined): void {
  const body = (request.body ?? {}) as { roles?: unknown; username?: unknown; password?: unknown };
  if (body.roles !== undefined) throw new AppError('permissionDenied', 'Only a network admin changes global roles: leave roles out.');
  const own = target?.id === actor.userId;
  if (target !== undefined && !own && (body.username !== undefined || body.password !== undefined)) {
    throw new AppError('permissionDenied', "Only a network admin changes another person's username or password.");
  }
}

/** A moderator's guard, with the user the request names. */
async function checkGuard(guard: Guard, request: FastifyRequest, actor: ModeratorActor, findUser: FindUser): Promise<void> {
  const targetId = targetUserIdOf(request);
  const target = targetId === null ? undefined : await findUser(targetId);
  requireNotNetworkAdmin(target);
  if (guard === 'userWrite') checkUserWrite(request, actor, target);
}

/**
 * The moderator's route check, run by the admission of a console sign-in (after routing, before the
 * body): the table must grant the route one of the moderator's permissions. Admin tokens never reach it.
 */
export function authorizeConsoleRoute(request: FastifyRequest): void {
  const actor = moderatorOf(request);
  if (actor === null) return;
  const rule = consoleRuleOf(request.method, request.routeOptions.url ?? '');
  if (rule === null || !rule.anyOf.some((permission) => actor.permissions.has(permission))) throw refusal(rule);
}

/**
 * The rules' further checks, once the body is read: a preHandler added only to the routes whose rule has
 * a guard (onRoute), so every other admin request, and every admin token's, runs no extra hook.
 */
export function installConsoleGuards(scope: TypedApp, deps: { findUser: FindUser }): void {
  const guardHandler = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const actor = moderatorOf(request);
    const guard = actor === null ? undefined : consoleRuleOf(request.method, request.routeOptions.url ?? '')?.guard;
    if (actor === null || guard === undefined) return done();
    checkGuard(guard, request, actor, deps.findUser).then(
      () => done(),
      (error: unknown) => done(error as Error),
    );
  };
  scope.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => consoleRuleOf(method, route.url)?.guard !== undefined)) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...existing, guardHandler];
  });
}
