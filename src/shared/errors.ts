/**
 * The closed catalogue of errors (docs/contract.md, Errors). Services throw AppError with a name
 * from here; one serializer in http/error-handler.ts turns every failure into the envelope.
 */
export const ERRORS = {
  badRequest: { code: 400000, http: 400, message: 'Bad request.' },
  unauthorized: { code: 400100, http: 401, message: 'Unauthorized.' },
  forbidden: { code: 400300, http: 403, message: 'Forbidden.' },
  permissionDenied: { code: 400301, http: 403, message: 'Permission denied.' },
  userMuted: { code: 400302, http: 403, message: 'User is muted in the channel.' },
  channelMuted: { code: 400303, http: 403, message: 'Channel is muted.' },
  bannedFromChannel: { code: 400304, http: 403, message: 'User is banned from the channel.' },
  maxRepetition: { code: 400307, http: 403, message: 'Max repetition exceeded.' },
  blacklisted: { code: 400308, http: 403, message: 'Text contains a blacklisted word.' },
  notWhitelisted: { code: 400309, http: 403, message: 'Text contains a link that is not whitelisted.' },
  rateLimited: { code: 400311, http: 429, message: 'Rate limit exceeded.' },
  globallyBanned: { code: 400312, http: 403, message: 'User is banned from the system.' },
  alreadyExists: { code: 400315, http: 409, message: 'Already exists.' },
  alreadyUnbanned: { code: 400316, http: 409, message: 'User is not banned.' },
  notFound: { code: 400400, http: 404, message: 'Not found.' },
  conflict: { code: 400900, http: 409, message: 'Conflict.' },
  parameters: { code: 500000, http: 422, message: 'Parameters error.' },
  payloadTooLarge: { code: 500000, http: 413, message: 'Payload too large.' },
  unexpected: { code: 500000, http: 500, message: 'Unexpected error.' },
} as const;

export type ErrorName = keyof typeof ERRORS;

export interface ErrorDetail {
  /** Where the problem is: `body.userIds[3]`, `query.limit`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly kind: ErrorName;
  readonly detail: ErrorDetail[] | undefined;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;
  /** The RFC 6749 / 6750 error code (`invalid_grant`, ...) on /oauth/token and /userinfo; sent as `error`. */
  readonly oauthError: string | undefined;

  constructor(kind: ErrorName, message?: string, options: { detail?: ErrorDetail[]; headers?: Record<string, string>; oauthError?: string } = {}) {
    super(message ?? ERRORS[kind].message);
    this.kind = kind;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.oauthError = options.oauthError;
  }

  get httpStatus(): number {
    return ERRORS[this.kind].http;
  }
}

export interface ErrorEnvelope {
  status: 'error';
  code: number;
  message: string;
  /**
   * `detail` is a list of readable sentences, the type the original's typed clients decode (Swift
   * `[String]`); `fields` carries the same problems by field for programs, a key those clients ignore.
   */
  data: { detail: string[]; fields: ErrorDetail[] };
  error?: string;
  error_description?: string;
}

/**
 * RFC 6749 sections 4.1.2.1 and 5.2: error_description holds only %x20-21 / %x23-5B / %x5D-7E (no
 * double quote, no backslash, nothing outside printable ASCII). Messages that quote a request's text
 * could carry anything; the rest is replaced.
 */
export function oauthDescription(message: string): string {
  return message.replace(/"/g, "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

export function envelopeOf(error: AppError): ErrorEnvelope {
  const fields = error.detail ?? [];
  const detail = fields.map((problem) => `${problem.field}: ${problem.message}`);
  const envelope: ErrorEnvelope = { status: 'error', code: ERRORS[error.kind].code, message: error.message, data: { detail, fields } };
  // OAuth clients read `error`; the original's SDKs read `status` and `message` (docs/contract.md, Errors).
  if (error.oauthError !== undefined) {
    envelope.error = error.oauthError;
    envelope.error_description = oauthDescription(error.message);
  }
  return envelope;
}

export const notFound = (what: string): AppError => new AppError('notFound', `${what} not found.`);
