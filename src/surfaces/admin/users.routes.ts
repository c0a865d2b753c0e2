import { type TSchema, Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import { Id, Metadata, StringEnum } from '../../shared/schemas.js';
import { presentRole, RoleRecord } from '../../modules/roles/roles.present.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import type { UsersService } from '../../modules/users/users.service.js';
import type { BanCommands } from '../../modules/bans/bans.commands.js';
import { BanMinutes } from '../../modules/bans/ban-lifts.types.js';
import { PagingRecord } from '../shared/message-answers.js';
import { moderators } from './console-access.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['users'] };
const Text = (maxLength: number) => Type.String({ maxLength });
const UserIdBody = Type.Object({ userId: Id() }, { examples: [{ userId: 'alice' }] });
const BanBody = Type.Object(
  { userId: Id(), minutes: Type.Optional(BanMinutes('How long the ban lasts, in minutes (1 to 525600, a year); absent: until an unban')) },
  { examples: [{ userId: 'alice' }, { userId: 'alice', minutes: 1440 }] },
);
const userExample = (UserRecord.examples as unknown[])[0] as Record<string, unknown>;
const firstExample = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];

const UpsertUserBody = Type.Object(
  {
    userId: Id(),
    displayName: Type.Optional(Text(200)),
    roles: Type.Optional(Type.Array(Id(), { maxItems: 100, description: 'Replaces the global roles (publicIds of roles)' })),
    metadata: Type.Optional(Metadata("The operator's own data about the user (at most 100 KB as JSON)")),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S+$', description: 'The sign-in name' })),
    password: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 256,
        description: "The sign-in password. Changing an existing user's password signs them out everywhere (sessions, grants, access tokens)",
      }),
    ),
    firstname: Type.Optional(Text(200)),
    lastname: Type.Optional(Text(200)),
    email: Type.Optional(Text(320)),
    position: Type.Optional(Text(200)),
    status: Type.Optional(Text(200)),
    extras: Type.Optional(Metadata('Further profile fields, returned by /userinfo as they are')),
  },
  {
    examples: [
      { userId: 'alice', displayName: 'Alice Martin', roles: ['moderator'], metadata: { team: 'support' } },
      { userId: 'alice', username: 'alice', password: 'correct horse battery', firstname: 'Alice', lastname: 'Martin', email: 'alice@example.com' },
    ],
  },
);

/** A user as the list carries it: the record, and its id again as `publicId`, the name the original's list used. */
const ListedUserInfo = Type.Composite(
  [UserRecord, Type.Object({ publicId: Type.String({ description: 'The userId again, under the name the original service used in this list' }) })],
  {
    description: 'A user of the list',
    examples: [{ ...userExample, publicId: userExample.userId }],
  },
);

const UserListAnswer = Type.Object(
  {
    users: Type.Array(Type.Object({ info: ListedUserInfo })),
    roles: Type.Array(RoleRecord, { description: 'The roles the listed users hold that exist, with their permissions' }),
    paging: PagingRecord,
  },
  {
    description: 'A page of users, in userId order, and the roles they hold',
    examples: [
      {
        users: [{ info: { ...userExample, publicId: userExample.userId } }],
        roles: [firstExample(RoleRecord)],
        paging: { next: 'eyJ1IjoiYWxpY2UifQ.x3Jf', prev: null },
      },
    ],
  },
);

export function registerUserRoutes(app: TypedApp, deps: { users: UsersService; bans: Pick<BanCommands, 'banUser' | 'unbanUser'> }): void {
  const { users, bans } = deps;

  app.get(
    '/users',
    {
      config: moderators(['EDIT_USER', 'BAN_USER'], 'listing users'),
      schema: {
        ...tag,
        summary: 'List users',
        description:
          'Lists users in userId order, a page at a time, optionally only flagged ones, only globally banned ones, or those matching a search. An altered page token is a 400.',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive prefix of displayName or userId' })),
          filter: Type.Optional(StringEnum(['all', 'flagged', 'banned'], 'flagged: only users with a flag; banned: only users banned globally; default all')),
          pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 10' })),
        }),
        response: answers(UserListAnswer),
      },
    },
    async (request) => {
      const { rows, roles, paging } = await users.list(request.query);
      return { users: rows.map((row) => ({ info: { ...presentUser(row), publicId: row.id } })), roles: roles.map(presentRole), paging };
    },
  );

  app.put(
    '/users',
    {
      config: { ...moderators(['EDIT_USER'], 'editing users', 'userWrite'), audit: 'user.upsert' },
      schema: {
        ...tag,
        summary: 'Create or update a user (only the fields given change)',
        description: 'Creates the user, or changes only the fields given, and answers the user. A username another user holds is a 409.',
        consumes: JSON_AND_FORM,
        body: UpsertUserBody,
        response: answers(UserRecord, { extraErrors: [409] }),
      },
    },
    async (request) => presentUser(await users.upsert(request.body)),
  );

  app.post(
    '/users/ban',
    {
      config: { ...moderators(['BAN_USER'], 'banning users', 'users'), audit: 'user.ban' },
      schema: {
        ...tag,
        summary: 'Ban a user globally',
        description:
          'Bans the user from the whole network and revokes every login session, grant and access token they hold: an unban restores none of them. ' +
          'With `minutes` the ban is lifted that many minutes from now (within a minute of its end); without, it lasts until an unban. ' +
          'Either way this ban replaces the end of an earlier timed one, whoever set it (a review of the moderation queue included). ' +
          'An unknown user is a 404; minutes outside 1 to 525600 a 422.',
        consumes: JSON_AND_FORM,
        body: BanBody,
        response: answers(SuccessAnswer),
      },
    },
    async (request) => {
      await bans.banUser(auditNoteOf(request), request.body.userId, request.body.minutes);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/users/unban',
    {
      config: { ...moderators(['BAN_USER'], 'banning users', 'users'), audit: 'user.unban' },
      schema: {
        ...tag,
        summary: 'Lift a global ban',
        description:
          'Lifts the global ban, a timed one included (its scheduled lift is then cancelled); what the ban revoked stays revoked (the user signs in again). An unknown user is a 404; a user who is not banned a 409 (400316).',
        consumes: JSON_AND_FORM,
        body: UserIdBody,
        response: answers(SuccessAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await bans.unbanUser(auditNoteOf(request), request.body.userId);
      return { status: 'success' as const };
    },
  );

  app.delete(
    '/users/:userId/flags',
    {
      config: { ...moderators(['EDIT_USER'], "clearing a user's flags", 'users'), audit: 'user.clearFlags' },
      schema: {
        ...tag,
        summary: "Clear a user's flags",
        description: 'Clears every flag on the user (flagCount becomes 0) and answers the user. An unknown user is a 404.',
        params: Type.Object({ userId: Id() }),
        response: answers(UserRecord),
      },
    },
    async (request) => presentUser(await users.clearFlags(request.params.userId)),
  );
}
