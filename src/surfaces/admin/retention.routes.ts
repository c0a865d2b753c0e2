import { Type } from '@sinclair/typebox';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { MessageRetention } from '../../modules/messages/retention.js';
import { ChannelIdParams } from '../../shared/schemas.js';
import { networkAdmins } from './console-access.js';

const tag = { tags: ['retention'] };

const RetentionRecord = Type.Object({
  channelId: Type.String(),
  retentionDays: Type.Union([Type.Integer(), Type.Null()], {
    description: "The channel's own period in days (0 keeps its messages for ever); null when PARLEY_MESSAGE_RETENTION_DAYS applies",
  }),
  effectiveDays: Type.Integer({ description: 'The period that applies to the channel, in days; 0 keeps its messages for ever' }),
});

const RetentionAnswer = Type.Object(
  { status: Type.Literal('success'), data: RetentionRecord },
  {
    description: "The channel's retention",
    examples: [{ status: 'success', data: { channelId: 'general', retentionDays: 30, effectiveDays: 30 } }],
  },
);

const RetentionBody = Type.Object(
  {
    days: Type.Union([Type.Integer({ minimum: 0, maximum: 36_500 }), Type.Null()], {
      description: 'Messages older than this many days are deleted (0: kept for ever); null clears the channel’s own period',
    }),
  },
  { examples: [{ days: 30 }, { days: null }] },
);

const RunAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object({
      claimed: Type.Boolean({ description: 'false when another instance is running retention (this request deleted nothing)' }),
      deleted: Type.Integer({ description: 'Messages deleted by this run' }),
      more: Type.Boolean({ description: 'Expired messages remain beyond what one run deletes; the next run goes on' }),
    }),
  },
  { description: 'What the run did', examples: [{ status: 'success', data: { claimed: true, deleted: 1200, more: false } }] },
);

/** Message retention: a channel's own period, and a run on demand. */
export function registerRetentionRoutes(app: TypedApp, deps: { retention: MessageRetention }): void {
  const { retention } = deps;

  app.get(
    '/channel/:channelId/retention',
    {
      config: networkAdmins('message retention'),
      schema: {
        ...tag,
        summary: "A channel's message retention",
        description: "The channel's own period and the one that applies. An unknown channel is a 404.",
        params: ChannelIdParams,
        response: answers(RetentionAnswer),
      },
    },
    async (request) => ({ status: 'success' as const, data: await retention.channelRetention(request.params.channelId) }),
  );

  app.put(
    '/channel/:channelId/retention',
    {
      config: { ...networkAdmins('message retention'), audit: 'channel.setRetention' },
      schema: {
        ...tag,
        summary: "Set or clear a channel's message retention",
        description:
          "Messages of the channel older than `days` are deleted by the retention job, as an admin deletes them (records kept as deleted, copies redacted, files removed); 0 keeps them for ever. The channel's own period overrides PARLEY_MESSAGE_RETENTION_DAYS, shorter or longer; `null` clears it. An unknown channel is a 404.",
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: RetentionBody,
        response: answers(RetentionAnswer, { extraErrors: [413] }),
      },
    },
    async (request) => ({ status: 'success' as const, data: await retention.setChannelRetention(request.params.channelId, request.body.days) }),
  );

  app.post(
    '/retention/run',
    {
      config: { ...networkAdmins('message retention'), audit: 'retention.run' },
      schema: {
        ...tag,
        summary: 'Run message retention now',
        description:
          'Deletes the expired messages now, in batches, as the periodic job does (at most one run at a time in the deployment), and answers when the run ends. A run is bounded: `more` says expired messages remain.',
        response: answers(RunAnswer),
      },
    },
    async () => ({ status: 'success' as const, data: await retention.runNow() }),
  );
}
