import { type TSchema, Type } from '@sinclair/typebox';

/**
 * The answers a route declares: its success record and the error envelope (docs/contract.md,
 * Errors) under every status the shared machinery can answer. Fastify serializes the success
 * through its schema, and /openapi.json documents both.
 */
export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Integer({ description: 'The error code of the catalogue (400100, 400400, 500000, ...)' }),
    message: Type.String(),
    data: Type.Object({
      detail: Type.Array(Type.String(), {
        description:
          'The problems as readable sentences, each naming its field (`body.userId: is required`, `querystring.limit: must be at most 100`); empty when there are none. ' +
          "A list of strings, as the original service's typed clients decode it",
      }),
      fields: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.String({ description: 'Where the problem is: `body.userIds[3]`, `querystring.limit`' }),
            message: Type.String({ description: 'What is wrong there' }),
          }),
          { description: "The same problems as `detail`, one per field, for programs to read; the original's clients ignore this key" },
        ),
      ),
    }),
    error: Type.Optional(Type.String({ description: 'OAuth endpoints only: the RFC 6749 error code' })),
    error_description: Type.Optional(Type.String()),
  },
  {
    description: 'An error',
    examples: [
      { status: 'error', code: 400400, message: 'Channel not found.', data: { detail: [], fields: [] } },
      {
        status: 'error',
        code: 500000,
        message: 'userId is required.',
        data: {
          detail: ['body.userId: is required'],
          fields: [{ field: 'body.userId', message: 'is required' }],
        },
      },
    ],
  },
);

/** What every authenticated route can answer besides its success. */
const COMMON_ERRORS = {
  400: 'The request is malformed or names an unknown value',
  401: 'The token is missing, invalid or expired',
  403: 'The token may not do this',
  404: 'What the request names does not exist',
  422: 'A field is missing or out of its bounds',
  429: 'Too many requests; retry after Retry-After seconds',
  500: 'Unexpected error',
} as const;

type ErrorStatus = keyof typeof COMMON_ERRORS | 409 | 413;

const EXTRA_ERRORS: Record<409 | 413, string> = {
  409: 'The request conflicts with the current state',
  413: 'The body or an upload is too large',
};

/**
 * `response` for a route schema: `success` under `status` (200 unless said), and the envelope under
 * each error status. `extraErrors` adds 409 or 413 where the route can answer them.
 */
export function answers<T extends TSchema>(success: T, options: { status?: 200 | 201 | 202; extraErrors?: Array<409 | 413> } = {}) {
  const errors: Partial<Record<ErrorStatus, TSchema>> = {};
  for (const [status, description] of Object.entries(COMMON_ERRORS)) errors[Number(status) as ErrorStatus] = { ...ErrorEnvelope, description };
  for (const status of options.extraErrors ?? []) errors[status] = { ...ErrorEnvelope, description: EXTRA_ERRORS[status] };
  return { [options.status ?? 200]: success, ...errors };
}

/** `{ "status": "success" }`, the answer of actions that return no record. */
export const SuccessAnswer = Type.Object({ status: Type.Literal('success') }, { description: 'Done', examples: [{ status: 'success' }] });

/** `consumes` of a route with a body: every API body is JSON or a form with nested keys (http/parsing.ts). */
export const JSON_AND_FORM = ['application/json', 'application/x-www-form-urlencoded'];

/** `consumes` of a route that also takes files. */
export const JSON_FORM_AND_MULTIPART = [...JSON_AND_FORM, 'multipart/form-data'];
