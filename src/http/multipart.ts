import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.js';
import { nulError, textFaultIn } from './parsing.js';
import { markTextBody } from './validation.js';

/** The one uploaded file of a multipart request, held in memory (at most config.uploadLimitBytes). */
export interface Upload {
  data: Buffer;
  fileName: string;
  mimeType: string;
}

/**
 * The parser's own complaints about a broken multipart body (no boundary, a truncated form, a
 * malformed part header: plain Errors from busboy, raised while iterating parts or reading a file)
 * become 400s. Errors that already carry a 4xx status (a file over the limit: 413) pass through;
 * @fastify/multipart's 406 for a non-multipart content type becomes 400 like every such refusal.
 */
export function asMultipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 406) return error;
  return new AppError('badRequest', `The multipart body is malformed: ${error instanceof Error ? error.message : 'unreadable'}.`);
}

/** Iterates a multipart body's parts, every parser error mapped by asMultipartError. */
export async function forEachPart(
  request: FastifyRequest,
  limits: { files: number; fields: number; fieldSize?: number },
  visit: (part: Multipart) => Promise<boolean | void>,
): Promise<void> {
  try {
    for await (const part of request.parts({ limits })) {
      if ((await visit(part)) === false) return;
    }
  } catch (error) {
    throw asMultipartError(error);
  }
}

const uploads = new WeakMap<FastifyRequest, Upload>();

/** `tags[]` and `tags[3]` are `tags`, as in forms (docs/contract.md, Requests). */
const fieldNameOf = (name: string): string => name.replace(/\[\d*\]$/, '');

function addField(body: Record<string, unknown>, name: string, value: unknown, arrayFields: ReadonlySet<string>): void {
  // A JSON array in one field (`tags=["a","b"]`) is accepted like a JSON object in a form field.
  if (arrayFields.has(name) && typeof value === 'string' && value.trim().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      // Left as the string it is; validation names the field.
    }
    if (Array.isArray(parsed)) {
      // Escapes may spell a NUL or a lone surrogate the field's own check could not see.
      const fault = textFaultIn(parsed, `body.${name}`);
      if (fault !== null) throw fault;
      body[name] = [...((body[name] as unknown[] | undefined) ?? []), ...parsed];
      return;
    }
  }
  const existing = body[name];
  if (existing === undefined) body[name] = arrayFields.has(name) ? [value] : value;
  else body[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
}

/**
 * Bounds on the fields beside the file, which the upload limit does not cover (it counts the file):
 * a caption of 20,000 characters is at most 80 KB, and 100 tags of 128 characters 50 KB. Before, 200
 * fields of 256 KB (51 MB, held twice) passed under a 1 MB upload limit.
 */
const MAX_FIELDS = 150;
const MAX_FIELD_BYTES = 96 * 1024;
const MAX_FIELDS_TOTAL_BYTES = 256 * 1024;

/**
 * A route preValidation hook: reads a multipart body into request.body (fields) and one file, so the
 * route's schema then validates the fields like any form: `true`/`false` become booleans, a single
 * tag becomes a list. Runs after authentication, so nobody streams a file to an endpoint they
 * cannot use. Files over the upload limit end in 413 (RequestFileTooLargeError).
 */
export function readMultipartBody(options: { fileField: string; arrayFields: readonly string[] }) {
  const arrayFields = new Set(options.arrayFields);
  return async function readMultipart(request: FastifyRequest): Promise<void> {
    if (!request.isMultipart()) throw new AppError('badRequest', 'Expected a multipart/form-data body.');
    const body: Record<string, unknown> = {};
    let fieldBytes = 0;
    let fieldCount = 0;
    // The count is ours, one above busboy's: at busboy's own limit its stream closed first and the
    // answer was 400 "Premature close" rather than this 413.
    await forEachPart(request, { files: 1, fields: MAX_FIELDS + 1, fieldSize: MAX_FIELD_BYTES }, async (part) => {
      if (part.type === 'file') {
        if (part.fieldname !== options.fileField) {
          part.file.resume();
          throw new AppError('badRequest', `Unexpected file field "${part.fieldname}"; send the file as "${options.fileField}".`);
        }
        uploads.set(request, { data: await part.toBuffer(), fileName: part.filename, mimeType: part.mimetype });
      } else {
        if (++fieldCount > MAX_FIELDS) throw new AppError('payloadTooLarge', `A multipart body may hold at most ${MAX_FIELDS} fields beside the file.`);
        const value = String(part.value);
        fieldBytes += Buffer.byteLength(value);
        if (value.includes('\u0000')) throw nulError(`body.${fieldNameOf(part.fieldname)}`);
        if (fieldBytes > MAX_FIELDS_TOTAL_BYTES)
          throw new AppError('payloadTooLarge', `The fields of a multipart body may hold at most ${MAX_FIELDS_TOTAL_BYTES / 1024} KB.`);
        addField(body, fieldNameOf(part.fieldname), part.value, arrayFields);
      }
    });
    // Every field arrived as text: validation reads "true" and "5" as the types (http/validation.ts).
    markTextBody(body);
    request.body = body;
  };
}

/** The file read by readMultipartBody; a request without one is a 422 naming the field. */
export function uploadOf(request: FastifyRequest, field = 'file'): Upload {
  const upload = uploads.get(request);
  if (!upload || upload.data.length === 0) {
    throw new AppError('parameters', `body.${field} is required.`, { detail: [{ field: `body.${field}`, message: 'must be a non-empty file' }] });
  }
  return upload;
}
