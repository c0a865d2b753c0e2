import type { FetchLike } from './auth/oauth.js';
import type { TokenProvider } from './auth/token-provider.js';
import { errorFromResponse, readBody, retryAfterSeconds } from './errors.js';
import { type RetryOptions, sleep } from './http.js';
import type { MessagePage } from './types.js';

/** What an upload sends: the bytes, their name and content type. */
export type UploadBody = Blob | ArrayBuffer | Uint8Array;

interface UploadCommon {
  /** The file's name; a `File`'s own name by default, else `upload`. */
  fileName?: string;
  /** The file's content type; a `Blob`'s own type by default, else application/octet-stream. */
  contentType?: string;
  tags?: string[];
  /** Makes the message a comment of this message. */
  parentId?: string;
  topicId?: string;
  /** Called as the body goes out: bytes sent so far, and the body's whole size. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
  /** How a refused upload is sent again (429 with `rateLimited`); a 401 refreshes the token once. */
  retry?: RetryOptions;
}

export interface ImageUpload extends UploadCommon {
  caption?: string;
  /** Also keep the original size (metadata stripped). */
  fullImage?: boolean;
}

export type FileUpload = UploadCommon;

/** The constructor of a browser's XMLHttpRequest, when the platform has one. */
type XhrConstructor = new () => XMLHttpRequest;

export interface UploadContext {
  baseUrl: string;
  tokenProvider: TokenProvider;
  fetch: FetchLike;
  retry: RetryOptions | undefined;
  /** The XMLHttpRequest to send with; default the global one where it exists (browsers), else fetch. */
  xhr?: XhrConstructor | null;
}

interface Part {
  name: string;
  value: string;
}

/** The multipart fields beside the file, in the names the server reads (docs/contract.md, Client API). */
function fieldsOf(options: ImageUpload): Part[] {
  const parts: Part[] = [];
  if (options.caption !== undefined) parts.push({ name: 'caption', value: options.caption });
  if (options.fullImage !== undefined) parts.push({ name: 'fullImage', value: String(options.fullImage) });
  for (const tag of options.tags ?? []) parts.push({ name: 'tags', value: tag });
  if (options.parentId !== undefined) parts.push({ name: 'parentId', value: options.parentId });
  if (options.topicId !== undefined) parts.push({ name: 'topicId', value: options.topicId });
  return parts;
}

const quoted = (text: string) => text.replace(/[\r\n"]/g, (char) => encodeURIComponent(char));

function nameOf(file: UploadBody, options: UploadCommon): string {
  if (options.fileName !== undefined) return options.fileName;
  const named = (file as { name?: unknown }).name;
  return typeof named === 'string' && named !== '' ? named : 'upload';
}

function typeOf(file: UploadBody, options: UploadCommon): string {
  if (options.contentType !== undefined) return options.contentType;
  return file instanceof Blob && file.type !== '' ? file.type : 'application/octet-stream';
}

/** The whole multipart/form-data body, fields first and the file last, with its boundary. */
async function multipart(file: UploadBody, options: ImageUpload): Promise<{ bytes: Uint8Array; contentType: string }> {
  const boundary = `----parley${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
  const encoder = new TextEncoder();
  let head = '';
  for (const part of fieldsOf(options)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(nameOf(file, options))}"\r\nContent-Type: ${typeOf(file, options)}\r\n\r\n`;
  const data = file instanceof Blob ? new Uint8Array(await file.arrayBuffer()) : file instanceof Uint8Array ? file : new Uint8Array(file);
  const start = encoder.encode(head);
  const end = encoder.encode(`\r\n--${boundary}--\r\n`);
  const bytes = new Uint8Array(start.length + data.length + end.length);
  bytes.set(start, 0);
  bytes.set(data, start.length);
  bytes.set(end, start.length + data.length);
  return { bytes, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Chunks of the body a stream hands out, and so counts as sent. */
const CHUNK = 64 * 1024;

/** The body as a stream that reports each chunk as it is taken (by fetch, to write to the socket). */
function countedStream(bytes: Uint8Array, onProgress: ((loaded: number, total: number) => void) | undefined): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        const chunk = bytes.subarray(offset, Math.min(offset + CHUNK, bytes.length));
        offset += chunk.length;
        controller.enqueue(chunk);
        onProgress?.(offset, bytes.length);
      },
    },
    { highWaterMark: 0 },
  );
}

interface Answered {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One send through fetch, the body a counted stream (Node: undici). */
async function sendWithFetch(
  context: UploadContext,
  url: string,
  token: string,
  body: { bytes: Uint8Array; contentType: string },
  options: UploadCommon,
): Promise<Answered> {
  const init: RequestInit & { duplex: 'half' } = {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType, accept: 'application/json' },
    body: countedStream(body.bytes, options.onProgress),
    duplex: 'half',
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const response = await context.fetch(new Request(url, init));
  return { status: response.status, headers: response.headers, body: await readBody(response) };
}

function parseText(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One send through XMLHttpRequest, whose upload events report the progress (browsers). */
function sendWithXhr(
  Xhr: XhrConstructor,
  url: string,
  token: string,
  body: { bytes: Uint8Array; contentType: string },
  options: UploadCommon,
): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const xhr = new Xhr();
    xhr.open('POST', url);
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('content-type', body.contentType);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (event) => options.onProgress?.(event.loaded, event.lengthComputable ? event.total : body.bytes.length);
    xhr.onload = () => {
      const headers = new Headers();
      for (const line of xhr
        .getAllResponseHeaders()
        .trim()
        .split(/[\r\n]+/)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      resolve({ status: xhr.status, headers, body: parseText(xhr.responseText) });
    };
    xhr.onerror = () => reject(new TypeError('The upload failed: the network refused it.'));
    xhr.onabort = () => reject(options.signal?.reason ?? new DOMException('The upload was aborted.', 'AbortError'));
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    options.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const copy = new Uint8Array(body.bytes.length);
    copy.set(body.bytes);
    xhr.send(new Blob([copy.buffer], { type: body.contentType }));
  });
}

/**
 * Uploads an image or a file as a message of a channel (`POST /client/v1/channels/:channelId/images`
 * or `/files`), reporting progress as the body goes out: through XMLHttpRequest where the platform has
 * it (browsers), else through fetch with a counted stream body (Node). A 401 refreshes the token once;
 * a 429 is waited out when `retry.rateLimited` asks; anything else outside 2xx throws a ParleyError.
 */
export async function uploadMessage(
  context: UploadContext,
  kind: 'images' | 'files',
  channelId: string,
  file: UploadBody,
  options: ImageUpload = {},
): Promise<MessagePage> {
  const url = `${context.baseUrl}/client/v1/channels/${encodeURIComponent(channelId)}/${kind}`;
  const body = await multipart(file, kind === 'images' ? options : { ...options, caption: undefined, fullImage: undefined });
  const retry = options.retry ?? context.retry ?? {};
  const maxAttempts = Math.max(1, retry.maxAttempts ?? 3);
  const Xhr = context.xhr === undefined ? ((globalThis as { XMLHttpRequest?: XhrConstructor }).XMLHttpRequest ?? null) : context.xhr;
  let token = await context.tokenProvider.getAccessToken();
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    const answered = Xhr !== null ? await sendWithXhr(Xhr, url, token, body, options) : await sendWithFetch(context, url, token, body, options);
    if (answered.status === 401 && !refreshed && context.tokenProvider.refresh) {
      refreshed = true;
      token = await context.tokenProvider.refresh(token);
      attempt--;
      continue;
    }
    if (answered.status === 429 && retry.rateLimited && attempt < maxAttempts) {
      const seconds = retryAfterSeconds(answered.headers.get('retry-after'));
      if (seconds <= (retry.maxWaitSeconds ?? 60)) {
        await sleep(seconds * 1000, options.signal ?? null);
        continue;
      }
    }
    if (answered.status < 200 || answered.status >= 300) {
      throw errorFromResponse(new Response(null, { status: answered.status, headers: answered.headers }), answered.body);
    }
    return answered.body as MessagePage;
  }
}
