import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { Id, Metadata, StringEnum } from '../../http/schemas.js';
import { presentUser } from '../../modules/users/users.present.js';
import type { UsersService } from '../../modules/users/users.service.js';

const tag = { tags: ['users'] };
const Text = (maxLength: number) => Type.String({ maxLength });
const UserIdBody = Type.Object({ userId: Id() });

export function registerUserRoutes(app: TypedApp, deps: { users: UsersService }): void {
  const { users } = deps;

  app.get(
    '/users',
    {
      schema: {
        ...tag,
        summary: 'List users',
        querystring: Type.Object({
          search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive prefix of displayName or userId' })),
          filter: Type.Optional(StringEnum(['all', 'flagged'])),
          pageToken: Type.Optional(Type.String({ maxLength: 2048 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }),
      },
    },
    async (request) => {
      const { rows, paging } = await users.list(request.query);
      return { users: rows.map((row) => ({ info: presentUser(row) })), paging };
    },
  );

  app.put(
    '/users',
    {
      schema: {
        ...tag,
        summary: 'Create or update a user (only the fields given change)',
        body: Type.Object({
          userId: Id(),
          displayName: Type.Optional(Text(200)),
          roles: Type.Optional(Type.Array(Id(), { maxItems: 100 })),
          metadata: Type.Optional(Metadata()),
          username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S+$' })),
          password: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
          firstname: Type.Optional(Text(200)),
          lastname: Type.Optional(Text(200)),
          email: Type.Optional(Text(320)),
          position: Type.Optional(Text(200)),
          status: Type.Optional(Text(200)),
          extras: Type.Optional(Metadata()),
        }),
      },
    },
    async (request) => presentUser(await users.upsert(request.body)),
  );

  app.post('/users/ban', { schema: { ...tag, summary: 'Ban a user globally', body: UserIdBody } }, async (request) => {
    await users.setGlobalBan(request.body.userId, true);
    return { status: 'success' as const };
  });

  app.post('/users/unban', { schema: { ...tag, summary: 'Lift a global ban', body: UserIdBody } }, async (request) => {
    await users.setGlobalBan(request.body.userId, false);
    return { status: 'success' as const };
  });

  app.delete(
    '/users/:userId/flags',
    { schema: { ...tag, summary: "Clear a user's flags", params: Type.Object({ userId: Id() }) } },
    async (request) => {
      await users.clearFlags(request.params.userId);
      return { status: 'success' as const };
    },
  );
}
