import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { LiveSessionRecord, presentLiveSession } from '../../modules/identity/live-sessions.present.js';
import type { LiveSessions } from '../../modules/identity/live-sessions.js';
import { Id } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';
import { networkAdmins } from './console-access.js';

const LiveSessionsAnswer = Type.Object(
  { sessions: Type.Array(LiveSessionRecord, { description: 'Newest sign-in first' }), paging: PagingRecord },
  {
    description: "A page of every user's live login sessions, newest sign-in first",
    examples: [{ sessions: LiveSessionRecord.examples, paging: { next: 'eyJhIjoxNzQxNTk0MzIwMDAwfQ.x3Jf', prev: null } }],
  },
);

/** Who is signed in where (network admins): every user's live login sessions, paged. */
export function registerLiveSessionRoutes(app: TypedApp, deps: { liveSessions: LiveSessions }): void {
  app.get(
    '/sessions',
    {
      config: networkAdmins("every user's login sessions"),
      schema: {
        tags: ['users'],
        summary: "List every user's live login sessions",
        description:
          'Lists the live login sessions of every user (browsers signed in at the sign-in pages), newest sign-in first, with the user, when they signed in, when the cookie was last used and when the session ends; optionally of one user. A session keeps no address or device. Revoke one with DELETE /api/v2/users/{userId}/sessions/{sessionId}. A page token continues its own query; an altered one is a 400.',
        querystring: Type.Object(
          {
            userId: Type.Optional(Id('Only the sessions of this user')),
            pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 25' })),
          },
          { examples: [{ limit: 25 }, { userId: 'alice' }] },
        ),
        response: answers(LiveSessionsAnswer),
      },
    },
    async (request) => {
      const { items, paging } = await deps.liveSessions.list(request.query);
      return { sessions: items.map(presentLiveSession), paging };
    },
  );
}
