/** One problem with one field of a refused request, as the server lists them in `data.fields`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * Any answer outside 2xx, in the server's error envelope
 * `{"status":"error","code":400400,"message":"Channel not found.","data":{"detail":[...]}}`.
 * `code` is the envelope's six-digit code (0 when the body was not an envelope); `detail` the problems as
 * sentences naming their fields (`body.userId: is required`), `fields` the same problems for programs.
 */
export class ParleyError extends Error {
  override readonly name: string = 'ParleyError';
  readonly status: number;
  readonly code: number;
  readonly detail: readonly string[];
  readonly fields: readonly FieldProblem[];
  /** The parsed body (or its text), for fields beyond the envelope such as OAuth's `error`. */
  readonly body: unknown;

  constructor(init: { status: number; code: number; message: string; detail?: readonly string[]; fields?: readonly FieldProblem[]; body?: unknown }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail ?? [];
    this.fields = init.fields ?? [];
    this.body = init.body;
  }
}

/** 429 / 400311: the caller spent its budget; `retryAfter` is how many seconds to wait. */
export class RateLimitError extends ParleyError {
  override readonly name: string = 'RateLimitError';
  readonly retryAfter: number;

  constructor(init: ConstructorParameters<typeof ParleyError>[0] & { retryAfter: number }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); 1 when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (header === null || header.trim() === '') return 1;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1 : Math.max(0, Math.ceil((date - now) / 1000));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error a refused answer stands for, read from its status, headers and (already parsed) body. */
export function errorFromResponse(response: Response, body: unknown): ParleyError {
  const envelope = isRecord(body) ? body : {};
  const data = isRecord(envelope.data) ? envelope.data : {};
  const detail = Array.isArray(data.detail) ? data.detail.filter((item): item is string => typeof item === 'string') : [];
  const fields = Array.isArray(data.fields)
    ? data.fields.filter(isRecord).map((item) => ({ field: String(item.field ?? ''), message: String(item.message ?? '') }))
    : [];
  const message =
    typeof envelope.message === 'string'
      ? envelope.message
      : typeof envelope.error_description === 'string'
        ? envelope.error_description
        : typeof body === 'string' && body !== ''
          ? body.slice(0, 500)
          : `HTTP ${response.status}`;
  const init = { status: response.status, code: typeof envelope.code === 'number' ? envelope.code : 0, message, detail, fields, body };
  if (response.status === 429) return new RateLimitError({ ...init, retryAfter: retryAfterSeconds(response.headers.get('retry-after')) });
  return new ParleyError(init);
}

/** Reads a response body as JSON when it is JSON, else as text (an empty body is null). */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
