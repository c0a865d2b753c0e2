/** One refused field of a request (a 422's `data.fields`, or a `field: message` line of `data.detail`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** An answer outside 2xx, read from the server's error envelope `{ status, code, message, data: { detail } }`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: number;
  readonly detail: Array<FieldProblem>;

  constructor(status: number, code: number, message: string, detail: Array<FieldProblem> = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `body.userId: is required` -> { field: 'userId', message: 'is required' }. */
function problemOfLine(line: string): FieldProblem {
  const match = /^(?:body|querystring|params|headers)?\.?([^:\s]*):\s*(.*)$/.exec(line);
  return match ? { field: match[1] ?? '', message: match[2] ?? line } : { field: '', message: line };
}

function problemsOf(data: Record<string, unknown>): Array<FieldProblem> {
  if (Array.isArray(data.fields)) {
    return data.fields.filter(isRecord).map((item) => ({ field: String(item.field ?? ''), message: String(item.message ?? '') }));
  }
  if (Array.isArray(data.detail)) return data.detail.filter((line): line is string => typeof line === 'string').map(problemOfLine);
  return [];
}

/** Words for a status the envelope did not explain (an HTML page from a proxy, an empty body). */
function fallbackMessage(status: number): string {
  if (status === 0) return 'The server could not be reached. Check the connection and try again.';
  if (status === 401) return 'Your sign-in has expired. Sign in again.';
  if (status === 403) return 'You do not have the right to do this.';
  if (status === 404) return 'Not found.';
  if (status >= 500) return `The server failed (HTTP ${status}). Try again in a moment.`;
  return `The request was refused (HTTP ${status}).`;
}

/** The ApiError an answer stands for, from its status and parsed body. */
export function apiErrorOf(status: number, body: unknown): ApiError {
  const envelope = isRecord(body) ? body : {};
  const data = isRecord(envelope.data) ? envelope.data : {};
  const message =
    typeof envelope.message === 'string' && envelope.message !== ''
      ? envelope.message
      : typeof envelope.error_description === 'string'
        ? envelope.error_description
        : fallbackMessage(status);
  return new ApiError(status, typeof envelope.code === 'number' ? envelope.code : 0, message, problemsOf(data));
}

/** Words for any thrown value, for places that show one line. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'Something went wrong.';
}
