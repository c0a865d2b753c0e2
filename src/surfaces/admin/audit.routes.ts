import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AuditEntryRecord, presentAuditEntry } from '../../modules/audit/audit.present.js';
import type { AuditService } from '../../modules/audit/audit.service.js';
import { AppError } from '../../shared/errors.js';
import { Id } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';
import { networkAdmins } from './console-access.js';

const AuditListAnswer = Type.Object(
  {
    entries: Type.Array(AuditEntryRecord, { description: 'Newest first' }),
    paging: PagingRecord,
  },
  {
    description: 'A page of the audit trail, newest first',
    examples: [{ entries: AuditEntryRecord.examples, paging: { next: 'eyJhIjoxNzQxOTQ0NDEzNTg5fQ.x3Jf', prev: null } }],
  },
);

const Time = (description: string) => Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description }));

/** An ISO time of the query as ms; a time the format passes but no date has (hour 24, second 60) is a 422. */
function msOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new AppError('parameters', `query.${field} is not a time.`, { detail: [{ field: `query.${field}`, message: 'is not a time' }] });
  return ms;
}

/** The audit trail of administrative actions (admin token), filtered and paged like the other admin lists. */
export function registerAuditRoutes(app: TypedApp, deps: { audit: AuditService }): void {
  app.get(
    '/audit',
    {
      config: networkAdmins('the audit trail'),
      schema: {
        tags: ['audit'],
        summary: 'The audit trail of administrative actions',
        description:
          'Lists the actions of admin tokens (every POST, PUT and DELETE of the admin API but the queries), of moderators on the client API, and of the parley command, newest first: who, the operation, the ids it named, when, the status and error code, and the request id. Filters apply together; a page token continues its own query. Entries older than PARLEY_AUDIT_RETENTION_DAYS are pruned.',
        querystring: Type.Object(
          {
            actor: Type.Optional(Id("Only this actor: an admin token's name, a user id, or cli")),
            target: Type.Optional(Id('Only actions naming this id (channel, message, user, rule, client...)')),
            operation: Type.Optional(Type.String({ minLength: 1, maxLength: 160, description: 'Only this operation, e.g. channel.close' })),
            from: Time('Only entries at or after this time (ISO 8601)'),
            to: Time('Only entries before this time (ISO 8601)'),
            pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 20' })),
          },
          { examples: [{ target: 'general', operation: 'channel.banUsers', limit: 20 }] },
        ),
        response: answers(AuditListAnswer),
      },
    },
    async (request) => {
      const { from, to, ...rest } = request.query;
      const { rows, paging } = await deps.audit.list({ ...rest, from: msOf(from, 'from'), to: msOf(to, 'to') });
      return { entries: rows.map(presentAuditEntry), paging };
    },
  );
}
